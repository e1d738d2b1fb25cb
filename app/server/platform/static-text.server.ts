// Static text the Worker serves but does not carry (decision 119): a file imported with `?url` is
// put in the asset layer by the build, and read through the ASSETS binding once per isolate.

const reads = new Map<string, Promise<string>>();

/** The text of the static file at `path` (an imported `?url`), read once per isolate; a failed read is tried again by the next call. */
export function staticText(assets: Fetcher, path: string, origin: string): Promise<string> {
  const known = reads.get(path);
  if (known) return known;
  const read = assets.fetch(new URL(path, origin)).then((response) => {
    if (!response.ok) throw new Error(`The static file ${path} answered ${response.status}`);
    return response.text();
  });
  reads.set(path, read);
  read.catch(() => reads.delete(path));
  return read;
}
