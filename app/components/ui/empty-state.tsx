import type { HTMLAttributes, ReactNode } from "react";
import { Card } from "./card";

/**
 * A card in place of a list that has nothing in it (or of something on its way): what is the case,
 * in bold, and what to do about it. `role="status"` and classes pass on to the card.
 */
export function EmptyState({ title, children, ...props }: { title: string; children?: ReactNode } & HTMLAttributes<HTMLDivElement>) {
  return (
    <Card {...props}>
      <p className="font-semibold">{title}</p>
      {children ? <p className="mt-1 text-sm text-muted">{children}</p> : null}
    </Card>
  );
}
