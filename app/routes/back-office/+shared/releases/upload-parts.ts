// The browser's side of a release upload: start it (or pick up the one this file was already
// sending), send each missing part with retries, then finish it. Parts go one at a time, so the
// page never holds more than one part of a 2 GB file; progress counts the bytes the server took.
import type { Answer } from "~/lib/answer";

const BASE = "/dashboard/releases/uploads";
const RETRIES = 5;

export interface Started {
  id: string;
  partBytes: number;
  parts: number;
}

export class UploadError extends Error {
  constructor(
    readonly answer: Extract<Answer, { ok: false }> | null,
    message: string,
  ) {
    super(message);
  }
}

async function call<T>(url: string, init: RequestInit): Promise<T> {
  const response = await fetch(url, { ...init, headers: { Accept: "application/json", ...init.headers } });
  const body = (await response.json().catch(() => null)) as Answer<T> | null;
  if (body?.ok) return body.value as T;
  throw new UploadError(body && !body.ok ? body : null, body && !body.ok ? body.problem.message : `The server answered ${response.status}`);
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Sends one part, trying again after a dropped connection or a server error (not after a refusal). */
async function sendPart(id: string, n: number, blob: Blob) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call<{ stored: number }>(`${BASE}/${id}?part=${n}`, { method: "PUT", body: blob });
    } catch (error) {
      const refused = error instanceof UploadError && error.answer !== null && error.answer.problem.code !== "failed";
      if (refused || attempt >= RETRIES) throw error;
      await wait(500 * 2 ** attempt);
    }
  }
}

// Which upload a file was going into, so choosing the same file again after a reload resumes it.
const resumeKey = (file: File) => `release-upload:${file.name}:${file.size}:${file.lastModified}`;

/** Starts the release described by `fields` (or resumes this file's), sends its parts, and finishes it. */
export async function uploadRelease(file: File, fields: Record<string, string>, onProgress: (sent: number, total: number) => void) {
  const remembered = localStorage.getItem(resumeKey(file));
  let upload: Started & { stored: number[] };
  const progress = remembered
    ? await call<{ parts: number[]; partBytes: number; total: number }>(`${BASE}/${remembered}`, { method: "GET" }).catch(() => null)
    : null;
  if (remembered && progress) {
    upload = { id: remembered, partBytes: progress.partBytes, parts: progress.total, stored: progress.parts };
  } else {
    const form = new URLSearchParams({ ...fields, intent: "start", fileName: file.name, size: String(file.size), contentType: file.type });
    upload = { ...(await call<Started>(BASE, { method: "POST", body: form })), stored: [] };
    localStorage.setItem(resumeKey(file), upload.id);
  }
  const { id, partBytes, parts } = upload;
  const partSize = (n: number) => Math.min(partBytes, file.size - (n - 1) * partBytes);
  let sent = upload.stored.reduce((sum, n) => sum + partSize(n), 0);
  onProgress(sent, file.size);
  for (let n = 1; n <= parts; n++) {
    if (upload.stored.includes(n)) continue;
    await sendPart(id, n, file.slice((n - 1) * partBytes, (n - 1) * partBytes + partSize(n)));
    sent += partSize(n);
    onProgress(sent, file.size);
  }
  const finished = await call<{ sha256: string; size: number }>(`${BASE}/${id}`, { method: "POST" });
  localStorage.removeItem(resumeKey(file));
  return finished;
}
