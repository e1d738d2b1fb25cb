// A list that scrolls inside its card. It takes keyboard focus, so the rows it hides can be
// scrolled to without a mouse, and it is named for the region it forms.
import type { ReactNode } from "react";

export function ScrollList({ label, children }: { label: string; children: ReactNode }) {
  return (
    <ul tabIndex={0} aria-label={label} className="mt-3 max-h-[400px] space-y-2 overflow-y-auto rounded-md pr-1">
      {children}
    </ul>
  );
}
