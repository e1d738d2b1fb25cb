// The footer: blurb, navigation, social icons and legal links.
import { Link } from "~/components/link";
import { BRAND, FOOTER_BLURB } from "~/lib/brand";
import { LEGAL_PAGES } from "~/lib/legal";

const SOCIALS = [
  {
    label: "YouTube",
    path: "M23.5 6.2a3 3 0 0 0-2.1-2.1C19.5 3.6 12 3.6 12 3.6s-7.5 0-9.4.5A3 3 0 0 0 .5 6.2 31 31 0 0 0 0 12a31 31 0 0 0 .5 5.8 3 3 0 0 0 2.1 2.1c1.9.5 9.4.5 9.4.5s7.5 0 9.4-.5a3 3 0 0 0 2.1-2.1A31 31 0 0 0 24 12a31 31 0 0 0-.5-5.8ZM9.6 15.6V8.4l6.3 3.6-6.3 3.6Z",
  },
  {
    label: "TikTok",
    path: "M16.6 5.8A4.3 4.3 0 0 1 15.5 3h-3.1v12.4a2.6 2.6 0 1 1-2.6-2.6c.3 0 .5 0 .8.1V9.7a5.8 5.8 0 1 0 5 5.7V9.1a7.4 7.4 0 0 0 4.3 1.4V7.4a4.3 4.3 0 0 1-3.3-1.6Z",
  },
  {
    label: "Instagram",
    path: "M12 7.4a4.6 4.6 0 1 0 0 9.2 4.6 4.6 0 0 0 0-9.2Zm0 7.6a3 3 0 1 1 0-6 3 3 0 0 1 0 6Zm5.9-7.8a1.1 1.1 0 1 1-2.2 0 1.1 1.1 0 0 1 2.2 0ZM21 8.3c-.1-1.5-.4-2.8-1.5-3.8S17.2 3.1 15.7 3c-1.5-.1-6-.1-7.5 0-1.5.1-2.8.4-3.8 1.5S3.1 6.8 3 8.3c-.1 1.5-.1 6 0 7.5.1 1.5.4 2.8 1.5 3.8s2.3 1.4 3.8 1.5c1.5.1 6 .1 7.5 0 1.5-.1 2.8-.4 3.8-1.5s1.4-2.3 1.5-3.8c.1-1.5.1-6 0-7.5Z",
  },
  {
    label: "Discord",
    path: "M20.3 4.4A19.8 19.8 0 0 0 15.4 3l-.6 1.3a18.4 18.4 0 0 0-5.6 0L8.6 3a19.7 19.7 0 0 0-4.9 1.5A20.3 20.3 0 0 0 .1 18a19.9 19.9 0 0 0 6 3l1.3-2.1a12.9 12.9 0 0 1-2-1l.5-.4a14.2 14.2 0 0 0 12.2 0l.5.4c-.6.4-1.3.7-2 1L17.9 21a19.8 19.8 0 0 0 6-3 20.2 20.2 0 0 0-3.6-13.6ZM8 15.3c-1.2 0-2.2-1.1-2.2-2.4S6.8 10.5 8 10.5s2.2 1.1 2.2 2.4-1 2.4-2.2 2.4Zm8 0c-1.2 0-2.2-1.1-2.2-2.4s1-2.4 2.2-2.4 2.2 1.1 2.2 2.4-1 2.4-2.2 2.4Z",
  },
];

export function SiteFooter() {
  const heading = "mb-3 text-sm font-semibold tracking-wide text-white uppercase";
  const link = "text-sm text-muted hover:text-white";
  return (
    <footer className="border-t border-line bg-panel/40">
      <div className="mx-auto grid max-w-7xl gap-10 px-4 py-12 sm:grid-cols-2 lg:grid-cols-4">
        <div>
          <p className="text-xl font-black text-white">
            {BRAND.toUpperCase()}
            <span className="text-accent">.</span>
          </p>
          <p className="mt-3 max-w-xs text-sm text-muted">{FOOTER_BLURB}</p>
        </div>
        <nav aria-label="Footer">
          <p className={heading}>Navigation</p>
          <ul className="space-y-2">
            <li>
              <Link className={link} to="/">
                Home
              </Link>
            </li>
            <li>
              <Link className={link} to="/products">
                Products
              </Link>
            </li>
            <li>
              <Link className={link} to="/status">
                Status
              </Link>
            </li>
            <li>
              <Link className={link} to="/support">
                Support
              </Link>
            </li>
            <li>
              <Link className={link} to="/affiliate">
                Affiliate
              </Link>
            </li>
          </ul>
        </nav>
        <div>
          <p className={heading}>Follow Us</p>
          <ul className="flex gap-3">
            {SOCIALS.map((s) => (
              <li key={s.label}>
                <a
                  href="#"
                  aria-label={s.label}
                  className="flex size-9 items-center justify-center rounded-md bg-panel-2 text-muted hover:text-white"
                >
                  <svg viewBox="0 0 24 24" className="size-4" fill="currentColor" aria-hidden>
                    <path d={s.path} />
                  </svg>
                </a>
              </li>
            ))}
          </ul>
        </div>
        <div>
          <p className={heading}>Legal</p>
          <ul className="space-y-2">
            {Object.values(LEGAL_PAGES).map(({ path, title }) => (
              <li key={path}>
                <Link className={link} to={path}>
                  {title}
                </Link>
              </li>
            ))}
          </ul>
        </div>
      </div>
      <p className="border-t border-line py-6 text-center text-xs text-muted">© 2025 {BRAND}. All rights reserved.</p>
    </footer>
  );
}
