/** Placeholder: the sandbox process entry (`remcp sandbox`), written by the sandbox work. */
export function sandboxMain(): Promise<void> {
  return Promise.reject(new Error("sandbox not built yet"));
}
