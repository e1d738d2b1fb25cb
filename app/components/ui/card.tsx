import type { HTMLAttributes } from "react";

/** A panel. Its padding is set with `padding`: a padding class in `className` would not win over the default. */
export function Card({ className = "", padding = "p-6", ...props }: HTMLAttributes<HTMLDivElement> & { padding?: string }) {
  return <div className={`rounded-xl border border-line bg-panel ${padding} ${className}`} {...props} />;
}
