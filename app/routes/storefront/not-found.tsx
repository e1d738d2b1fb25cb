// Any path no other route claims: a real 404 status with the "page not found" screen.
import { data } from "react-router";
import { NotFoundPage } from "~/components/status-pages";

export function loader() {
  return data(null, { status: 404 });
}

export const meta = () => [{ title: "Page not found" }];

export default function NotFound() {
  return <NotFoundPage />;
}
