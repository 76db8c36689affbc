/*
 * bench/diff.ts's driver around Expat: the same file for each release, built with that
 * release's sources compiled in (no archive, so every function of the library stays in the
 * executable). Parses its argument (or a small document) and counts elements and text.
 */
#include <expat.h>
#include <stdio.h>
#include <string.h>

struct counts {
  int elements;
  int depth;
  int max_depth;
  long text;
};

static void XMLCALL on_start(void *data, const XML_Char *name, const XML_Char **attrs) {
  struct counts *c = data;
  (void)name;
  (void)attrs;
  c->elements++;
  if (++c->depth > c->max_depth) c->max_depth = c->depth;
}

static void XMLCALL on_end(void *data, const XML_Char *name) {
  (void)name;
  ((struct counts *)data)->depth--;
}

static void XMLCALL on_text(void *data, const XML_Char *s, int len) {
  (void)s;
  ((struct counts *)data)->text += len;
}

int main(int argc, char **argv) {
  const char *doc = argc > 1 ? argv[1]
                             : "<?xml version='1.0'?><!DOCTYPE a [<!ENTITY e 'x'>]>"
                               "<a xmlns:p='urn:p'><p:b k='v'>&e;t</p:b><c/></a>";
  struct counts c = {0, 0, 0, 0};
  XML_Parser p = XML_ParserCreateNS(NULL, '|');
  if (!p) return 1;
  XML_SetUserData(p, &c);
  XML_SetElementHandler(p, on_start, on_end);
  XML_SetCharacterDataHandler(p, on_text);
  XML_SetParamEntityParsing(p, XML_PARAM_ENTITY_PARSING_UNLESS_STANDALONE);
  enum XML_Status st = XML_Parse(p, doc, (int)strlen(doc), 1);
  if (st != XML_STATUS_OK) {
    fprintf(stderr, "line %lu: %s\n", (unsigned long)XML_GetCurrentLineNumber(p),
            XML_ErrorString(XML_GetErrorCode(p)));
  }
  XML_ParserFree(p);
  printf("%s: %d elements, depth %d, %ld bytes of text\n", XML_ExpatVersion(), c.elements,
         c.max_depth, c.text);
  return st == XML_STATUS_OK ? 0 : 2;
}
