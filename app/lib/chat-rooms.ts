// A chat room's kinds and settings as the database stores them (decisions 094 and 095). Apart from
// the chat protocol (./chat), which re-exports them: the D1 schema needs these values, and every
// module that reads D1, a licence check's included, loads the schema (decision 116).

/** Who may see a room and post in it: every member; every member reads and staff post; a product's licence holders. */
export const ROOM_KINDS = ["open", "announcements", "product"] as const;
export type RoomKind = (typeof ROOM_KINDS)[number];
/** Links in messages: allowed to everyone, to staff only, or to no one. */
export const LINK_RULES = ["allowed", "staff", "off"] as const;
export type LinkRule = (typeof LINK_RULES)[number];
/** How many days a room keeps its messages unless staff choose otherwise. */
export const RETENTION_DEFAULT_DAYS = 90;
