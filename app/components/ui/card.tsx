import type { HTMLAttributes } from "react";

type CardProps = HTMLAttributes<HTMLElement> & {
  padding?: string;
  /** The element it is: a plain panel, or a region or article named by its heading (`aria-labelledby`). */
  as?: "div" | "section" | "article";
};

/** A panel. Its padding is set with `padding`: a padding class in `className` would not win over the default. */
export function Card({ className = "", padding = "p-6", as: Element = "div", ...props }: CardProps) {
  return <Element className={`rounded-xl border border-line bg-panel ${padding} ${className}`} {...props} />;
}
