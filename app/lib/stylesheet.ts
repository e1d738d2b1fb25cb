// Outside the development server the whole stylesheet travels inside each document (the Worker
// writes it into the head), so a page paints from its HTML alone; the development server keeps
// the linked stylesheet that Vite updates in place. The same switch holds hydration until after the
// first paint (decision 025), which the development server leaves alone too.
export const STYLESHEET_INLINED = import.meta.env.MODE !== "development";
