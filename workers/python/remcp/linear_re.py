"""User patterns matched in linear time, with RE2's semantics (as the TypeScript side's re2js).

Python's ``re`` backtracks: ``(a|a)+$`` against a long name takes exponential time, and a guard
that looks for nested quantifiers misses some of them. Here a pattern is parsed into a small
program (Thompson's construction) and run as a lazily built DFA: each character costs one
dictionary lookup once seen, whatever the pattern. The constructs that need backtracking
(backreferences, lookaround) are refused.

Syntax: literals, ``.``, classes ``[a-z]`` ``[^…]``, ``\\d \\w \\s`` (ASCII, as in RE2) and their
negations, ``\\b \\B``, anchors ``^ $ \\A \\z``, groups ``(…)`` ``(?:…)`` ``(?P<n>…)``
``(?<n>…)``, alternation, ``* + ? {n} {n,} {n,m}`` (lazy forms match the same texts). Matching is
case-insensitive and finds the pattern anywhere in the text.
"""

MAX_REPEAT = 1000
MAX_PROGRAM = 20_000
# Transitions cached per compiled pattern before the cache starts over.
MAX_CACHE = 50_000

_WORD = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
_DIGIT = frozenset("0123456789")
_SPACE = frozenset(" \t\n\r\f\v")


class PatternError(ValueError):
    """A pattern that is not valid here; ``unsupported`` names a construct RE2 leaves out."""

    def __init__(self, message, unsupported=None):
        super().__init__(message)
        self.unsupported = unsupported


# A character set: (negated, chars, ranges) where ranges are (lo, hi) code point pairs.
def _set(chars=(), ranges=(), negated=False):
    return (negated, frozenset(chars), tuple(ranges))


def _in_set(cset, options):
    """Whether any of ``options`` (a character's case forms) is in the set, negation applied
    after: ``[^a-z]`` matches no case form of a letter."""
    negated, chars, ranges = cset
    found = False
    for ch in options:
        if ch in chars or any(lo <= ord(ch) <= hi for lo, hi in ranges):
            found = True
            break
    return found != negated


_CLASS_ESCAPES = {
    "d": _set(_DIGIT), "D": _set(_DIGIT, negated=True),
    "w": _set(_WORD), "W": _set(_WORD, negated=True),
    "s": _set(_SPACE), "S": _set(_SPACE, negated=True),
}
_CHAR_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "f": "\f", "v": "\v", "a": "\a", "0": "\0"}
_ASSERT_ESCAPES = {"b": "word", "B": "notword", "A": "start", "z": "end"}
_DOT = _set("\n", negated=True)


class _Parser:
    """Recursive descent over the pattern into a tree of tuples."""

    def __init__(self, pattern):
        self.p = pattern
        self.i = 0

    def parse(self):
        node = self.alternation()
        if self.i < len(self.p):
            raise PatternError(f"unbalanced ')' at position {self.i}")
        return node

    def peek(self):
        return self.p[self.i] if self.i < len(self.p) else None

    def alternation(self):
        branches = [self.concat()]
        while self.peek() == "|":
            self.i += 1
            branches.append(self.concat())
        return branches[0] if len(branches) == 1 else ("alt", branches)

    def concat(self):
        items = []
        while self.peek() not in (None, "|", ")"):
            items.append(self.repeat(self.atom()))
        return ("cat", items)

    def repeat(self, node):
        while True:
            c = self.peek()
            if c in ("*", "+", "?"):
                self.i += 1
                lo, hi = {"*": (0, None), "+": (1, None), "?": (0, 1)}[c]
            elif c == "{":
                bounds = self.counted()
                if bounds is None:
                    return node
                lo, hi = bounds
            else:
                return node
            if self.peek() == "?":
                self.i += 1  # Lazy: the same texts match; only a match's extent would differ.
            elif self.peek() in ("+", "*") or (self.peek() == "{" and self._looks_counted()):
                raise PatternError(f"invalid nested repetition at position {self.i}")
            node = ("rep", node, lo, hi)

    def _looks_counted(self):
        save = self.i
        try:
            return self.counted() is not None
        finally:
            self.i = save

    def counted(self):
        """``{n}``, ``{n,}`` or ``{n,m}`` at the cursor, consumed; None (cursor kept) if not."""
        j = self.p.find("}", self.i)
        if j < 0:
            return None
        body = self.p[self.i + 1:j]
        parts = body.split(",")
        if len(parts) > 2 or not parts[0].isdigit() or (len(parts) == 2 and parts[1] != ""
                                                         and not parts[1].isdigit()):
            return None
        lo = int(parts[0])
        hi = lo if len(parts) == 1 else (int(parts[1]) if parts[1] else None)
        if lo > MAX_REPEAT or (hi is not None and (hi > MAX_REPEAT or hi < lo)):
            raise PatternError(f"bad repetition {{{body}}}: counts go up to {MAX_REPEAT}")
        self.i = j + 1
        return lo, hi

    def atom(self):
        c = self.p[self.i]
        self.i += 1
        if c == "(":
            return self.group()
        if c == "[":
            return ("set", self.char_class())
        if c == ".":
            return ("set", _DOT)
        if c == "^":
            return ("assert", "start")
        if c == "$":
            return ("assert", "end")
        if c == "\\":
            return self.escape()
        if c in "*+?":
            raise PatternError(f"nothing to repeat at position {self.i - 1}")
        return ("set", _set(c))

    def group(self):
        if self.p.startswith("?", self.i):
            rest = self.p[self.i + 1:]
            if rest.startswith(("=", "!", "<=", "<!")):
                raise PatternError("lookaround", unsupported="lookaround ((?=…), (?!…), (?<=…), (?<!…))")
            if rest.startswith("P="):
                raise PatternError("backreference", unsupported="backreferences (\\1, (?P=name))")
            if rest.startswith("i)"):
                self.i += 3  # Case-insensitive already.
                return ("cat", [])
            if rest.startswith(":"):
                self.i += 2
            elif rest.startswith(("P<", "<")):
                end = self.p.find(">", self.i)
                if end < 0:
                    raise PatternError("unterminated group name")
                self.i = end + 1
            else:
                raise PatternError(f"unsupported group syntax (?{rest[:1]} at position {self.i - 1}")
        node = self.alternation()
        if self.peek() != ")":
            raise PatternError("missing ')'")
        self.i += 1
        return node

    def escape(self):
        if self.i >= len(self.p):
            raise PatternError("trailing backslash")
        c = self.p[self.i]
        self.i += 1
        if c in _CLASS_ESCAPES:
            return ("set", _CLASS_ESCAPES[c])
        if c in _ASSERT_ESCAPES:
            return ("assert", _ASSERT_ESCAPES[c])
        if c.isdigit() and c != "0":
            raise PatternError("backreference", unsupported="backreferences (\\1, (?P=name))")
        if c == "k" and self.peek() == "<":
            raise PatternError("backreference", unsupported="backreferences (\\1, (?P=name))")
        return ("set", _set(self.escaped_char(c)))

    def escaped_char(self, c):
        if c in _CHAR_ESCAPES:
            return _CHAR_ESCAPES[c]
        if c in "xu":
            width = 2 if c == "x" else 4
            digits = self.p[self.i:self.i + width]
            if len(digits) != width or any(d not in "0123456789abcdefABCDEF" for d in digits):
                raise PatternError(f"bad \\{c} escape at position {self.i - 2}")
            self.i += width
            return chr(int(digits, 16))
        if c.isalnum():
            raise PatternError(f"unknown escape \\{c}")
        return c

    def char_class(self):
        negated = self.peek() == "^"
        if negated:
            self.i += 1
        chars, ranges, first = set(), [], True
        while True:
            if self.i >= len(self.p):
                raise PatternError("missing ']'")
            c = self.p[self.i]
            self.i += 1
            if c == "]" and not first:
                break
            first = False
            if c == "\\":
                e = self.p[self.i] if self.i < len(self.p) else ""
                self.i += 1
                if e in _CLASS_ESCAPES:
                    neg, cs, rs = _CLASS_ESCAPES[e]
                    if neg:
                        raise PatternError(f"\\{e} inside a class is not supported: list the characters")
                    chars |= cs
                    ranges.extend(rs)
                    continue
                c = self.escaped_char(e)
            if self.peek() == "-" and self.i + 1 < len(self.p) and self.p[self.i + 1] != "]":
                self.i += 1
                hi = self.p[self.i]
                self.i += 1
                if hi == "\\":
                    hi = self.escaped_char(self.p[self.i])
                    self.i += 1
                if ord(hi) < ord(c):
                    raise PatternError(f"bad range {c}-{hi}")
                ranges.append((ord(c), ord(hi)))
            else:
                chars.add(c)
        return _set(chars, ranges, negated)


def _compile(node, prog):
    """Appends ``node``'s instructions to ``prog`` (Thompson's construction)."""
    if len(prog) > MAX_PROGRAM:
        raise PatternError("the pattern is too large once its repetitions are expanded")
    kind = node[0]
    if kind == "set":
        prog.append(["set", node[1]])
    elif kind == "assert":
        prog.append(["assert", node[1]])
    elif kind == "cat":
        for item in node[1]:
            _compile(item, prog)
    elif kind == "alt":
        jumps = []
        for branch in node[1][:-1]:
            split = len(prog)
            prog.append(["split", split + 1, None])
            _compile(branch, prog)
            jumps.append(len(prog))
            prog.append(["jmp", None])
            prog[split][2] = len(prog)
        _compile(node[1][-1], prog)
        for j in jumps:
            prog[j][1] = len(prog)
    elif kind == "rep":
        _, sub, lo, hi = node
        for _ in range(lo):
            _compile(sub, prog)
        if hi is None:
            split = len(prog)
            prog.append(["split", split + 1, None])
            _compile(sub, prog)
            prog.append(["jmp", split])
            prog[split][2] = len(prog)
        else:
            splits = []
            for _ in range(hi - lo):
                splits.append(len(prog))
                prog.append(["split", len(prog) + 1, None])
                _compile(sub, prog)
            for s in splits:
                prog[s][2] = len(prog)


def _is_word(ch):
    return ch is not None and ch in _WORD


class LinearPattern:
    """A compiled pattern; ``search(text)`` is truthy when it matches somewhere in ``text``."""

    def __init__(self, pattern):
        self.pattern = pattern
        tree = _Parser(pattern).parse()
        prog = []
        _compile(tree, prog)
        prog.append(["match"])
        self._prog = [tuple(ins) for ins in prog]
        self._literal = _literal_of(tree)
        self._ids = {}
        self._info = []
        self._rows = []  # Per state: character -> next state.
        self._cached = 0

    def search(self, text):
        if self._literal is not None:
            return self._literal in text.lower()
        if self._cached > MAX_CACHE:
            self._ids.clear()
            self._info.clear()
            self._rows.clear()
            self._cached = 0
        rows = self._rows
        state = self._state(frozenset(), True, False)
        for ch in text:
            row = rows[state]
            nxt = row.get(ch)
            if nxt is None:
                nxt = row[ch] = self._step(state, ch)
                self._cached += 1
            if nxt < 0:
                return True
            state = nxt
        return self._matches_at_end(state)

    # A DFA state, numbered: (NFA pcs reached by the last character, at the start of the text,
    # the last character a word character). -1 stands for "matched".
    def _state(self, pcs, at_start, prev_word):
        key = (pcs, at_start, prev_word)
        found = self._ids.get(key)
        if found is None:
            found = self._ids[key] = len(self._info)
            self._info.append(key)
            self._rows.append({})
        return found

    def _closure(self, pcs, at_start, at_end, prev_word, next_word):
        """The instructions reachable from ``pcs`` (and the start, for a search anywhere)."""
        prog, seen, out = self._prog, set(), []
        stack = list(pcs) + [0]
        while stack:
            pc = stack.pop()
            if pc in seen:
                continue
            seen.add(pc)
            op = prog[pc]
            kind = op[0]
            if kind == "jmp":
                stack.append(op[1])
            elif kind == "split":
                stack.append(op[2])
                stack.append(op[1])
            elif kind == "assert":
                what = op[1]
                if ((what == "start" and at_start) or (what == "end" and at_end)
                        or (what == "word" and prev_word != next_word)
                        or (what == "notword" and prev_word == next_word)):
                    stack.append(pc + 1)
            else:
                out.append(pc)
        return out

    def _step(self, state, ch):
        pcs, at_start, prev_word = self._info[state]
        options = (ch, ch.lower(), ch.upper())
        nxt = set()
        for pc in self._closure(pcs, at_start, False, prev_word, _is_word(ch)):
            op = self._prog[pc]
            if op[0] == "match":
                return -1
            if _in_set(op[1], options):
                nxt.add(pc + 1)
        return self._state(frozenset(nxt), False, _is_word(ch))

    def _matches_at_end(self, state):
        pcs, at_start, prev_word = self._info[state]
        return any(self._prog[pc][0] == "match"
                   for pc in self._closure(pcs, at_start, True, prev_word, False))


def _literal_of(tree):
    """The lower-cased text of a pattern that is plain characters only, else None."""
    if tree[0] != "cat" or not tree[1]:
        return None
    out = []
    for node in tree[1]:
        if node[0] != "set":
            return None
        negated, chars, ranges = node[1]
        if negated or ranges or len(chars) != 1:
            return None
        (c,) = chars
        if c.lower().upper() != c.upper() or len(c.lower()) != 1:
            return None
        out.append(c.lower())
    return "".join(out)
