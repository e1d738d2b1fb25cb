// Documents the repository holds, shown as pages: Markdown rendered on the server with raw HTML
// switched off, so nothing in a document can put markup or script into the page (decision 051).
import MarkdownIt from "markdown-it";

const markdown = new MarkdownIt({ html: false, linkify: false, typographer: false });

/** `text` as HTML: Markdown's own constructs only; any HTML in it is shown as text. */
export const renderMarkdown = (text: string): string => markdown.render(text);
