// Reading a submitted form. A body that is not a form, or is far larger than any of our forms, is
// answered with 400 or 413 instead of surfacing as an unhandled error.
import { data } from "react-router";

/** Comfortably above the largest text form (a thousand codes of up to 200 characters). */
export const MAX_FORM_BYTES = 512 * 1024;

const tooLarge = () => data("This form is too large.", { status: 413 });

/** A body sent without a declared length (chunked), read only up to `maxBytes`. */
async function readAtMost(body: ReadableStream<Uint8Array>, maxBytes: number): Promise<Uint8Array<ArrayBuffer>> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

export async function readForm(request: Request, maxBytes = MAX_FORM_BYTES): Promise<FormData> {
  const declared = request.headers.get("Content-Length");
  if (Number(declared ?? 0) > maxBytes) throw tooLarge();
  const source =
    declared === null && request.body
      ? new Response(await readAtMost(request.body, maxBytes), { headers: { "Content-Type": request.headers.get("Content-Type") ?? "" } })
      : request;
  try {
    return await source.formData();
  } catch {
    throw data("This form could not be read.", { status: 400 });
  }
}

/** The form's text fields. A file sent where text is expected reads as an empty field. */
export async function readFormFields(request: Request): Promise<Record<string, string>> {
  const form = await readForm(request);
  return Object.fromEntries([...form.entries()].map(([name, value]) => [name, typeof value === "string" ? value : ""]));
}
