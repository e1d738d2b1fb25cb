// QR codes drawn on the server, as an SVG data URL an <img> can show: no QR code library in the
// browser bundle, and the page stays the same before and after hydration.
import { renderSVG } from "uqr";
import { toBase64 } from "./tokens.server";

export function qrDataUrl(text: string): string {
  const svg = renderSVG(text, { border: 2, pixelSize: 6, whiteColor: "#ffffff", blackColor: "#000000" });
  return `data:image/svg+xml;base64,${toBase64(new TextEncoder().encode(svg))}`;
}
