// Reading a submitted form. A body that is not a form, or is far larger than any of our forms, is
// answered with 400 or 413 instead of surfacing as an unhandled error.
import { data } from "react-router";

/** Comfortably above the largest text form (a thousand codes of up to 200 characters). */
export const MAX_FORM_BYTES = 512 * 1024;

export async function readForm(request: Request, maxBytes = MAX_FORM_BYTES): Promise<FormData> {
  if (Number(request.headers.get("Content-Length") ?? 0) > maxBytes) throw data("This form is too large.", { status: 413 });
  try {
    return await request.formData();
  } catch {
    throw data("This form could not be read.", { status: 400 });
  }
}

/** The form's text fields. A file sent where text is expected reads as an empty field. */
export async function readFormFields(request: Request): Promise<Record<string, string>> {
  const form = await readForm(request);
  return Object.fromEntries([...form.entries()].map(([name, value]) => [name, typeof value === "string" ? value : ""]));
}
