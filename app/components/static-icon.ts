// The icons: the <svg> Lucide draws, with the same attributes and classes, but its shapes written
// once per icon as markup instead of as elements on every render (decision 100). The server's build
// draws ./icons.ts's icons with it in place of Lucide's components, and the browser's build each
// Lucide icon file's icon in place of Lucide's factory (decision 114; both in vite.config.ts). The
// development server's browser side keeps Lucide's own: the markup is the same.
import { createElement, type SVGProps } from "react";

/** What a Lucide icon file holds besides its component: its name, aliases and shapes. */
interface IconData {
  name: string;
  aliases?: readonly string[];
  node: readonly (readonly [tag: string, attributes: Readonly<Record<string, string | number>>])[];
}

export type IconProps = Omit<SVGProps<SVGSVGElement>, "children" | "dangerouslySetInnerHTML">;

// Lucide's defaults, in its order.
const SVG_ATTRIBUTES = {
  xmlns: "http://www.w3.org/2000/svg",
  width: 24,
  height: 24,
  viewBox: "0 0 24 24",
  fill: "none",
  stroke: "currentColor",
  strokeWidth: 2,
  strokeLinecap: "round",
  strokeLinejoin: "round",
} as const;

const escapeAttribute = (value: string | number) => String(value).replaceAll("&", "&amp;").replaceAll('"', "&quot;");

/** The classes once each, in order, whitespace collapsed: what Lucide writes, so hydration matches. */
function withClasses(...lists: string[]): string {
  const tokens = new Set<string>();
  for (const list of lists) for (const token of list.split(/\s+/)) if (token) tokens.add(token);
  return [...tokens].join(" ");
}

/** Whether `props` name the icon for assistive technology (then it is not hidden from it), as Lucide decides. */
const labelled = (props: Record<string, unknown>) =>
  Object.keys(props).some((name) => (name.startsWith("aria-") || name === "role" || name === "title") && props[name] != null);

/**
 * An icon drawn as Lucide draws it, its shapes written once as markup. The server's build draws
 * every icon of ./icons.ts with it (vite.config.ts, `staticIconsOnTheServer`).
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
  function Icon({ className, ...props }: IconProps) {
    return createElement("svg", {
      ...SVG_ATTRIBUTES,
      className: className ? withClasses(classes, className) : classes,
      ...(labelled(props) ? {} : { "aria-hidden": "true" as const }),
      ...props,
      dangerouslySetInnerHTML: shapes,
    });
  }
  Icon.displayName = name;
  return Icon;
}
