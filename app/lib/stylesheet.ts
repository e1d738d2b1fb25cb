// Outside the development server the Worker shapes each document for the first paint: it inlines
// the first screen's CSS or links the whole stylesheet itself, and holds hydration until after the
// first paint (decisions 025, 106). The development server keeps the linked stylesheet that Vite
// updates in place, and its documents as React Router renders them.
export const DOCUMENTS_SHAPED = import.meta.env.MODE !== "development";
