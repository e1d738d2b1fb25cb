// QR codes drawn on the server, as an SVG data URL an <img> can show: no QR code library in the
// browser bundle, and the page stays the same before and after hydration. The encoder is loaded on
// the first QR code drawn, not at every start (decision 107).
import { onFirstUse } from "./on-first-use.server";
import { toBase64 } from "./tokens.server";

const encoder = onFirstUse(() => import("uqr"));

export async function qrDataUrl(text: string): Promise<string> {
  const { renderSVG } = await encoder();
  const svg = renderSVG(text, { border: 2, pixelSize: 6, whiteColor: "#ffffff", blackColor: "#000000" });
  return `data:image/svg+xml;base64,${toBase64(new TextEncoder().encode(svg))}`;
}
