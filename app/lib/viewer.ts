// The signed-in account as pages see it.
import type { Role } from "./roles";

export interface Viewer {
  id: string;
  email: string;
  username: string;
  avatarUrl: string | null;
  // Staff have a role (admin or support); members have none. What a role may do is a capability
  // (app/lib/roles.ts), never a check of the role's name.
  role: Role | null;
}

/** The avatar's fallback letter: the e-mail's first letter in upper case, else "U". */
export function avatarInitial(email: string | null | undefined): string {
  return email?.trim().charAt(0).toUpperCase() || "U";
}
