// What the Worker build puts in place of linkify-it (decision 115). Markdown is rendered with
// `linkify: false`, so markdown-it only constructs its link finder and never asks it anything; its
// URL grammar and list of top-level domains stay out of the upload. Should links in plain text ever
// be wanted, this refuses loudly rather than rendering differently.
function off(): never {
  throw new Error("Finding links in plain text is switched off for Markdown");
}

export class LinkifyIt {
  test = off;
  match = off;
  matchAtStart = off;
  pretest = off;
}
