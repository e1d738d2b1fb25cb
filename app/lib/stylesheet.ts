// Outside the development server the whole stylesheet travels inside each document (the Worker
// writes it into the head), so a page paints from its HTML alone; the development server keeps
// the linked stylesheet that Vite updates in place.
export const STYLESHEET_INLINED = import.meta.env.MODE !== "development";
