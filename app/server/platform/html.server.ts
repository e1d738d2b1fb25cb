// Escaping for the few HTML strings the server writes by hand (e-mail bodies), and the plain
// e-mails the accounts send, in text and HTML from the same paragraphs.
const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

/** A paragraph of a plain e-mail: text, or a link (the text version shows its address, the HTML version its label). */
export type MailParagraph = string | { href: string; label: string };

export function mailBody(paragraphs: MailParagraph[]): { text: string; html: string } {
  return {
    text: paragraphs.map((p) => (typeof p === "string" ? p : p.href)).join("\n\n"),
    html: paragraphs
      .map((p) => (typeof p === "string" ? `<p>${escapeHtml(p)}</p>` : `<p><a href="${escapeHtml(p.href)}">${escapeHtml(p.label)}</a></p>`))
      .join(""),
  };
}
