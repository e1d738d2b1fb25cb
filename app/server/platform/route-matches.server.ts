// React Router's route matching, remembered per path (decision 120). Its matcher tries the route
// table's branches one by one, best-ranked first, so a page whose route ranks low (`/`, an area's
// index) is matched only after nearly every other branch was tried, and each request of a page
// matches its path two or three times. The Worker's build has the matcher of the request handler
// ask here first (`memoisedRouteMatching` in vite.config.ts): a path it has matched before answers
// the same matches, as fresh objects, without trying the branches again.

interface RouteMatch {
  params: Record<string, string | undefined>;
}

/** The paths each matcher remembers at most; the oldest is forgotten first. */
export const REMEMBERED_PATHS = 500;

const remembered = new WeakMap<object, Map<string, readonly RouteMatch[] | null>>();

/**
 * The matches `match` finds for `location`, from what `matcher` found for the same path before.
 * Each call answers new match objects sharing one new params object, as a fresh match does, so
 * what a caller changes in them reaches neither the remembered matches nor another request.
 */
export function rememberedMatch<M extends RouteMatch>(
  matcher: object,
  location: string | { pathname?: string },
  allowPartial: boolean,
  match: () => M[] | null,
): M[] | null {
  const path = typeof location === "string" ? location : (location.pathname ?? "");
  const key = `${allowPartial ? "partial" : "whole"} ${path}`;
  let paths = remembered.get(matcher);
  if (!paths) remembered.set(matcher, (paths = new Map()));
  let found = paths.get(key) as readonly M[] | null | undefined;
  if (found === undefined) {
    found = match();
    if (paths.size >= REMEMBERED_PATHS) paths.delete(paths.keys().next().value!);
    paths.set(key, found);
  }
  if (!found) return null;
  const params = { ...found[0]?.params };
  return found.map((each) => ({ ...each, params }));
}

/** Forgets what `matcher` matched: its routes changed. */
export function forgetMatches(matcher: object) {
  remembered.delete(matcher);
}
