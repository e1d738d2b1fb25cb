import type { ReactNode } from "react";

const TONES = {
  green: "bg-green-500/15 text-green-400 border-green-500/30",
  yellow: "bg-yellow-500/15 text-yellow-300 border-yellow-500/30",
  red: "bg-red-500/15 text-red-400 border-red-500/30",
  blue: "bg-sky-500/15 text-sky-300 border-sky-500/30",
  gray: "bg-zinc-500/15 text-zinc-300 border-zinc-500/30",
  orange: "bg-accent/15 text-accent-soft border-accent/30",
};

export type BadgeTone = keyof typeof TONES;

export function Badge({ tone = "gray", children }: { tone?: BadgeTone; children: ReactNode }) {
  return (
    <span className={`inline-flex items-center rounded-full border px-2 py-0.5 text-xs font-semibold whitespace-nowrap ${TONES[tone]}`}>
      {children}
    </span>
  );
}
