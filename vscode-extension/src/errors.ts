// How an error thrown by the language client or a request reads in a message or the log.

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
