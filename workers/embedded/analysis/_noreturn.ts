/**
 * Library functions that never return. A call to one ends its basic block with no fallthrough.
 * Names are compared without a leading `_` (Mach-O) or `__imp_` and without an `@VERSION`.
 */

const NAMES = [
  "exit",
  "_exit",
  "_Exit",
  "abort",
  "__stack_chk_fail",
  "__stack_chk_fail_local",
  "__assert_fail",
  "__assert_rtn",
  "__assert",
  "_assert",
  "_wassert",
  "__fortify_fail",
  "__chk_fail",
  "err",
  "errx",
  "verr",
  "verrx",
  "longjmp",
  "_longjmp",
  "siglongjmp",
  "__longjmp_chk",
  "__cxa_throw",
  "__cxa_rethrow",
  "__cxa_bad_cast",
  "__cxa_bad_typeid",
  "__cxa_pure_virtual",
  "__cxa_call_unexpected",
  "_Unwind_Resume",
  "__libc_start_main",
  "pthread_exit",
  "quick_exit",
  "thrd_exit",
  "ExitProcess",
  "ExitThread",
  "TerminateProcess",
  "FatalExit",
  "RaiseFailFastException",
  "__fastfail",
  "_invalid_parameter_noinfo_noreturn",
  "__report_gsfailure",
  "_amsg_exit",
  "__std_terminate",
  "terminate",
  "_ZSt9terminatev",
  "_ZSt17__throw_bad_allocv",
  "_ZSt20__throw_length_errorPKc",
  "_ZSt24__throw_out_of_range_fmtPKcz",
  "_ZSt19__throw_logic_errorPKc",
  "_ZSt20__throw_out_of_rangePKc",
  "__ubsan_handle_builtin_unreachable",
];

const SET: ReadonlySet<string> = new Set(NAMES);

/** Whether the library function `name` is known never to return. */
export function isNoReturnName(name: string): boolean {
  let n = name;
  const at = n.indexOf("@");
  if (at > 0) n = n.slice(0, at);
  if (n.startsWith("__imp_")) n = n.slice(6);
  if (SET.has(n)) return true;
  return n.startsWith("_") && SET.has(n.slice(1));
}
