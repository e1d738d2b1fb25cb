// Discord roles as badges, or "none": what a member's licences give, or what they have in the
// shop's server, on the member's Security page and on the customer's page in the back office.
import { Badge } from "./ui/badge";

export const DiscordRoleList = ({ roles }: { roles: string[] }) =>
  roles.length === 0 ? (
    <span className="text-muted">none</span>
  ) : (
    <>
      {roles.map((role) => (
        <Badge key={role} tone="blue">
          {role}
        </Badge>
      ))}
    </>
  );
