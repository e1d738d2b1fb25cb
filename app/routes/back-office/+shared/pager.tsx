// The links under a list that pages by cursor (orders, customers): back to the newest page, and on
// to older entries.
import { Link } from "~/components/link";
import { buttonClass } from "~/components/ui/button";

/** `newest`: where the first page is, once past it; `older`: the next page, if there is one. */
export function Pager({ newest, older }: { newest: string | null; older: string | null }) {
  return (
    <nav aria-label="Pages" className="mt-4 flex flex-wrap gap-2">
      {newest ? (
        <Link to={newest} className={buttonClass("ghost", "sm")}>
          ← Newest
        </Link>
      ) : null}
      {older ? (
        <Link to={older} className={buttonClass("outline", "sm")}>
          Older →
        </Link>
      ) : null}
    </nav>
  );
}
