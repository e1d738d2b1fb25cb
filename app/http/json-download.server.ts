// A JSON document as a download: an attachment with its dated name, never cached.
export function jsonDownload(value: unknown, what: string, now = Date.now()): Response {
  return new Response(JSON.stringify(value, null, 2), {
    headers: {
      "Content-Type": "application/json; charset=utf-8",
      "Content-Disposition": `attachment; filename="${what}-${new Date(now).toISOString().slice(0, 10)}.json"`,
      "Cache-Control": "private, no-store",
    },
  });
}
