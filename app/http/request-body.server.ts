// Reading request bodies under a size cap, before anything parses or hashes them. A declared
// length above the cap is refused without reading a byte; a body sent without one (chunked) is
// read only until it passes the cap, and the rest is cancelled. A body that is too large or cannot
// be read comes back as a `too-large` or `invalid` problem, never as a thrown error (decision 026).
import { fail, ok, type Result } from "~/lib/result";

/** Comfortably above the largest text form (a thousand codes of up to 200 characters). */
export const MAX_FORM_BYTES = 512 * 1024;

/** Our JSON endpoints take a cart or a few fields: a few kilobytes at most. */
const MAX_JSON_BYTES = 64 * 1024;

interface BodyMessages {
  tooLarge: string;
  unreadable: string;
}

/**
 * `body`, cut off once more than `maxBytes` have come through: the source is cancelled, so at most
 * one chunk past the cap is ever read, and the stream errors for whoever reads it.
 */
function cappedStream(body: ReadableStream<Uint8Array>, maxBytes: number, onOverflow: () => void): ReadableStream<Uint8Array> {
  const source = body.getReader();
  let size = 0;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const { done, value } = await source.read();
        if (done) return controller.close();
        size += value.byteLength;
        if (size > maxBytes) {
          onOverflow();
          await source.cancel();
          return controller.error(new RangeError(`Body larger than ${maxBytes} bytes`));
        }
        controller.enqueue(value);
      },
      cancel: (reason) => source.cancel(reason),
    },
    // Pull only when the reader asks: nothing is read ahead of the cap check.
    { highWaterMark: 0 },
  );
}

/**
 * Reads `request`'s body with `read` (as a form, JSON, bytes) if it is at most `maxBytes`. A
 * declared Content-Length is trusted as an upper bound because the runtime frames the body by it:
 * the stream ends there. Only a body of undeclared length needs counting as it is read.
 */
async function readBody<T>(
  request: Request,
  maxBytes: number,
  read: (body: Request | Response) => Promise<T>,
  messages: BodyMessages,
): Promise<Result<T>> {
  // Anything but digits is no length at all, and the body is counted as it is read.
  const length = request.headers.get("Content-Length");
  const declared = length !== null && /^\d+$/.test(length) ? Number(length) : null;
  if ((declared ?? 0) > maxBytes) return fail("too-large", messages.tooLarge);
  let overflowed = false;
  // A body of declared length is read as it is; only one without is read through the counter.
  const body =
    declared === null && request.body
      ? new Response(
          cappedStream(request.body, maxBytes, () => (overflowed = true)),
          { headers: { "Content-Type": request.headers.get("Content-Type") ?? "" } },
        )
      : request;
  try {
    return ok(await read(body));
  } catch {
    return fail(overflowed ? "too-large" : "invalid", overflowed ? messages.tooLarge : messages.unreadable);
  }
}

export function readForm(request: Request, maxBytes = MAX_FORM_BYTES): Promise<Result<FormData>> {
  return readBody(request, maxBytes, (body) => body.formData(), {
    tooLarge: "This form is too large.",
    unreadable: "This form could not be read.",
  });
}

/** The form's text fields. A file sent where text is expected reads as an empty field. */
export async function readFormFields(request: Request): Promise<Result<Record<string, string>>> {
  const form = await readForm(request);
  if (!form.ok) return form;
  return ok(Object.fromEntries([...form.value.entries()].map(([name, value]) => [name, typeof value === "string" ? value : ""])));
}

/** A JSON body, parsed but not yet checked: that is the endpoint's schema's job. */
export function readJson(request: Request): Promise<Result<unknown>> {
  return readBody(request, MAX_JSON_BYTES, (body) => body.json<unknown>(), {
    tooLarge: "Request too large",
    unreadable: "Invalid request",
  });
}

/** The body's bytes as sent, for checking a signature over them. */
export function readBytes(request: Request, maxBytes: number): Promise<Result<ArrayBuffer>> {
  return readBody(request, maxBytes, (body) => body.arrayBuffer(), {
    tooLarge: "This payload is too large.",
    unreadable: "This payload could not be read.",
  });
}
