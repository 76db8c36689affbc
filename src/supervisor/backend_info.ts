/** One backend as list_backends reports it. */
export interface BackendInfo {
  name: string;
  available: boolean;
  version?: string | undefined;
  reason?: string | undefined;
  engine: string;
}
