// Static text the Worker serves but does not carry (decision 119): a file imported with `?url` is
// put in the asset layer by the build, and read through the ASSETS binding once per isolate.

/** Reads a static file's text by the path its `?url` import gave. */
export type StaticText = (path: string) => Promise<string>;

const reads = new Map<string, Promise<string>>();

/** Static files read from `assets`, as a request to `origin` finds them; each file once per isolate, a failed read again by the next call. */
export function staticText(assets: Fetcher, origin: string): StaticText {
  return (path) => {
    const known = reads.get(path);
    if (known) return known;
    const read = assets.fetch(new URL(path, origin)).then((response) => {
      if (!response.ok) throw new Error(`The static file ${path} answered ${response.status}`);
      return response.text();
    });
    reads.set(path, read);
    read.catch(() => reads.delete(path));
    return read;
  };
}
