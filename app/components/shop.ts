// Public shop settings the root loader provides to every page.
import { useRouteLoaderData } from "react-router";
import type { loader } from "~/root";

export function useShop() {
  const data = useRouteLoaderData<typeof loader>("root");
  return {
    productsHref: data?.productsHref ?? "/products",
    communityUrl: data?.communityUrl ?? "#",
    supportEmail: data?.supportEmail ?? "",
    heroVideoId: data?.heroVideoId ?? "",
  };
}
