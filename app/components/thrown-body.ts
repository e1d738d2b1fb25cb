// What a page's loader or guard threw with a status carries for the page drawn in its place.
import type { ErrorResponse } from "react-router";

/** A thrown answer's body, as far as it can be read: its message, the 500's reference, a refusal's shell. */
export function thrownBody(error: ErrorResponse): { message?: string; reference?: string; shell?: unknown } {
  const body: unknown = error.data;
  if (typeof body !== "object" || body === null) return typeof body === "string" && body ? { message: body } : {};
  const { message, reference, shell } = body as Record<string, unknown>;
  return {
    message: typeof message === "string" ? message : undefined,
    reference: typeof reference === "string" ? reference : undefined,
    shell,
  };
}
