// Whether a page's own search (a GET form) is on its way: only a form sent to `path` counts, so a
// link elsewhere, or the page's own Older and Newer links, never make its button say "Searching...".
import { useNavigation } from "react-router";

export function useSearching(path: string): boolean {
  const navigation = useNavigation();
  return navigation.state !== "idle" && navigation.formMethod === "GET" && navigation.location.pathname === path;
}
