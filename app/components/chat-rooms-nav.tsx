// The chat rooms in the dashboard's sidebar, each with what the member has not read of it and how
// much of that mentions them (kept per member by each room, decision 095). Asked for once the page
// is up (never holding up the page's own data), again on every page change, when the member comes
// back to the window, and every minute while it is in view. The room on screen shows no count:
// the member is reading it.
import { type ReactNode, useEffect, useRef } from "react";
import { useFetcher, useLocation } from "react-router";
import { NavLink } from "~/components/link";
import type { SidebarRoom } from "~/lib/chat";
import { Hash } from "./icons";

const REFRESH_MS = 60_000;
/** A room's page is this and its slug. */
export const CHAT_PATH_PREFIX = "/dashboard/chat/";
const ROOMS_PATH = "/api/chat/rooms";

/** The room a page shows: a room's own page, or the dashboard's home, which shows the general room. */
function roomOnScreen(pathname: string): string | null {
  if (pathname === "/dashboard") return "general";
  return /^\/dashboard\/chat\/([^/]+)$/.exec(pathname)?.[1] ?? null;
}

function Unread({ room }: { room: SidebarRoom }) {
  if (room.unread === 0) return null;
  const shown = room.unread >= 100 ? "99+" : String(room.unread);
  return (
    <span className="ml-auto flex items-center gap-1">
      {room.mentions > 0 ? (
        <span aria-hidden className="rounded-full bg-accent px-1.5 text-xs font-bold text-zinc-950">
          @
        </span>
      ) : null}
      <span aria-hidden className="rounded-full bg-zinc-600 px-1.5 text-xs font-semibold text-white">
        {shown}
      </span>
      <span className="sr-only">
        , {shown} unread{room.mentions > 0 ? `, ${room.mentions >= 100 ? "99+" : room.mentions} mentioning you` : ""}
      </span>
    </span>
  );
}

export function ChatRoomsNav({
  linkClass,
  onRooms,
}: {
  linkClass: (state: { isActive: boolean }) => string;
  /** Told how many rooms are listed once they arrive: the sidebar keeps its current link in view. */
  onRooms: (count: number) => void;
}) {
  const fetcher = useFetcher<{ rooms: SidebarRoom[] }>();
  const { pathname } = useLocation();
  const load = useRef(fetcher.load);
  load.current = fetcher.load;

  useEffect(() => {
    void load.current(ROOMS_PATH);
  }, [pathname]);

  useEffect(() => {
    const again = () => {
      if (document.visibilityState === "visible") void load.current(ROOMS_PATH);
    };
    const timer = setInterval(again, REFRESH_MS);
    document.addEventListener("visibilitychange", again);
    window.addEventListener("focus", again);
    return () => {
      clearInterval(timer);
      document.removeEventListener("visibilitychange", again);
      window.removeEventListener("focus", again);
    };
  }, []);

  const rooms = fetcher.data?.rooms;
  const roomCount = rooms?.length ?? 0;
  useEffect(() => onRooms(roomCount), [onRooms, roomCount]);
  const onScreen = roomOnScreen(pathname);
  let items: ReactNode;
  if (!rooms) {
    items = (
      <li className="px-3 py-1.5 text-xs text-muted">
        <span role="status">Loading rooms...</span>
      </li>
    );
  } else {
    items = rooms.map((room) => (
      <li key={room.slug}>
        <NavLink to={`${CHAT_PATH_PREFIX}${room.slug}`} className={linkClass}>
          <Hash className="size-4" aria-hidden /> <span className="min-w-0 truncate">{room.name}</span>
          {room.slug === onScreen ? null : <Unread room={room} />}
        </NavLink>
      </li>
    ));
  }
  return (
    <>
      <p id="chat-rooms-nav" className="mt-4 px-3 pb-1 text-xs font-semibold tracking-wider text-muted uppercase">
        Chat
      </p>
      <ul aria-labelledby="chat-rooms-nav" className="flex flex-col gap-1">
        {items}
      </ul>
    </>
  );
}
