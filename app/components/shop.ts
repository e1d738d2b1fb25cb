// Public shop settings the root loader provides to every page.
import { useRouteLoaderData } from "react-router";

/** What the root loader hands every page: the same for every visitor, so pages stay cacheable. */
export interface ShopSettings {
  productsHref: string;
  communityUrl: string;
  supportEmail: string;
  heroVideoId: string;
}

export function useShop(): ShopSettings {
  const data = useRouteLoaderData<ShopSettings>("root");
  return {
    productsHref: data?.productsHref ?? "/products",
    communityUrl: data?.communityUrl ?? "#",
    supportEmail: data?.supportEmail ?? "",
    heroVideoId: data?.heroVideoId ?? "",
  };
}
