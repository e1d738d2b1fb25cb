// The icons: the <svg> Lucide draws, with the same classes, but its shapes written once per icon as
// markup instead of as elements on every render (decision 100), and its presentation in the
// stylesheet instead of eight attributes on every icon (decision 121). The server draws ./icons.ts's
// icons with it in place of Lucide's components, and the browser each Lucide icon file's icon in
// place of Lucide's factory (decision 114; both in vite.config.ts), so hydration finds the markup
// it draws.
import { createElement, type SVGProps } from "react";

/** What a Lucide icon file holds besides its component: its name, aliases and shapes. */
interface IconData {
  name: string;
  aliases?: readonly string[];
  node: readonly (readonly [tag: string, attributes: Readonly<Record<string, string | number>>])[];
}

export type IconProps = Omit<SVGProps<SVGSVGElement>, "children" | "dangerouslySetInnerHTML">;

// Of what Lucide writes on every <svg>, only the frame: its size (24 px), no fill and a round
// 2 px stroke in the text's colour are the stylesheet's `.lucide` rule (app/shop.css, decision 121),
// which a size or colour class overrides as it overrode Lucide's attributes.
const VIEW_BOX = "0 0 24 24";

/** How many class lists each icon keeps joined: the few its call sites write, bounded for any that vary. */
const JOINED_KEPT = 64;

const escapeAttribute = (value: string | number) => String(value).replaceAll("&", "&amp;").replaceAll('"', "&quot;");

/** The classes once each, in order, whitespace collapsed, as Lucide writes them. */
function withClasses(...lists: string[]): string {
  const tokens = new Set<string>();
  for (const list of lists) for (const token of list.split(/\s+/)) if (token) tokens.add(token);
  return [...tokens].join(" ");
}

/** Whether `props` name the icon for assistive technology (then it is not hidden from it), as Lucide decides. */
const labelled = (props: Record<string, unknown>) =>
  Object.keys(props).some((name) => (name.startsWith("aria-") || name === "role" || name === "title") && props[name] != null);

/**
 * An icon as Lucide draws it, its shapes written once as markup and its presentation left to the
 * stylesheet. The server draws every icon of ./icons.ts with it (vite.config.ts, `staticIconsOnTheServer`).
 */
export function staticIcon({ name, aliases = [], node }: IconData) {
  const classes = ["lucide", `lucide-${name}`, ...aliases.map((alias) => `lucide-${alias}`)].join(" ");
  const shapes = {
    __html: node
      .map(([tag, attributes]) => {
        const written = Object.entries(attributes).filter(([attribute]) => attribute !== "key");
        return `<${tag}${written.map(([attribute, value]) => ` ${attribute}="${escapeAttribute(value)}"`).join("")}></${tag}>`;
      })
      .join(""),
  };
  // The class lists a page draws this icon with, joined once each (a page draws the same few many times).
  const joined = new Map<string, string>();
  const classesWith = (className: string) => {
    let written = joined.get(className);
    if (written === undefined) {
      if (joined.size >= JOINED_KEPT) joined.clear();
      written = withClasses(classes, className);
      joined.set(className, written);
    }
    return written;
  };
  function Icon({ className, ...props }: IconProps) {
    return createElement("svg", {
      viewBox: VIEW_BOX,
      className: className ? classesWith(className) : classes,
      ...(labelled(props) ? {} : { "aria-hidden": "true" as const }),
      ...props,
      dangerouslySetInnerHTML: shapes,
    });
  }
  Icon.displayName = name;
  return Icon;
}
