// Icons in use, imported one file each so neither the dev server nor the tests load all of Lucide
// (an icon Lucide renamed is imported from its file under the new name, which holds its data).
// Each is drawn as Lucide draws it (the same <svg> and attributes), but its shapes are written once
// per icon as markup instead of as elements on every render: a page draws dozens of icons (the
// dashboard's sidebar alone twenty), and the server renderer writes each element and attribute
// one by one (decision 100).
import { createElement, type SVGProps } from "react";
import { __iconData as activityIcon } from "lucide-react/icons/activity";
import { __iconData as triangleAlertIcon } from "lucide-react/icons/triangle-exclamation-point";
import { __iconData as arrowLeftIcon } from "lucide-react/icons/arrow-left";
import { __iconData as badgeCheckIcon } from "lucide-react/icons/badge-check";
import { __iconData as badgePercentIcon } from "lucide-react/icons/badge-percent";
import { __iconData as banIcon } from "lucide-react/icons/ban";
import { __iconData as bellIcon } from "lucide-react/icons/bell";
import { __iconData as bellOffIcon } from "lucide-react/icons/bell-off";
import { __iconData as bitcoinIcon } from "lucide-react/icons/bitcoin";
import { __iconData as bookOpenIcon } from "lucide-react/icons/book-open";
import { __iconData as chartColumnIcon } from "lucide-react/icons/chart-column";
import { __iconData as checkIcon } from "lucide-react/icons/check";
import { __iconData as circleCheckIcon } from "lucide-react/icons/circle-check";
import { __iconData as circleAlertIcon } from "lucide-react/icons/circle-exclamation-point";
import { __iconData as circleSlashIcon } from "lucide-react/icons/circle-slash";
import { __iconData as chevronDownIcon } from "lucide-react/icons/chevron-down";
import { __iconData as clockIcon } from "lucide-react/icons/clock";
import { __iconData as copyIcon } from "lucide-react/icons/copy";
import { __iconData as creditCardIcon } from "lucide-react/icons/credit-card";
import { __iconData as downloadIcon } from "lucide-react/icons/download";
import { __iconData as eyeOffIcon } from "lucide-react/icons/eye-off";
import { __iconData as fileDownIcon } from "lucide-react/icons/file-down";
import { __iconData as fileKeyIcon } from "lucide-react/icons/file-key";
import { __iconData as flameIcon } from "lucide-react/icons/flame";
import { __iconData as gavelIcon } from "lucide-react/icons/gavel";
import { __iconData as handshakeIcon } from "lucide-react/icons/handshake";
import { __iconData as hashIcon } from "lucide-react/icons/hash";
import { __iconData as historyIcon } from "lucide-react/icons/rotate-ccw-clock";
import { __iconData as hourglassIcon } from "lucide-react/icons/hourglass";
import { __iconData as keyRoundIcon } from "lucide-react/icons/key-round";
import { __iconData as layoutDashboardIcon } from "lucide-react/icons/layout-dashboard";
import { __iconData as lockIcon } from "lucide-react/icons/lock";
import { __iconData as logOutIcon } from "lucide-react/icons/log-out";
import { __iconData as mailIcon } from "lucide-react/icons/mail";
import { __iconData as mailCheckIcon } from "lucide-react/icons/mail-check";
import { __iconData as menuIcon } from "lucide-react/icons/menu";
import { __iconData as messageCircleIcon } from "lucide-react/icons/message-circle";
import { __iconData as minusIcon } from "lucide-react/icons/minus";
import { __iconData as monitorIcon } from "lucide-react/icons/monitor";
import { __iconData as packageIcon } from "lucide-react/icons/package";
import { __iconData as percentIcon } from "lucide-react/icons/percent";
import { __iconData as pinIcon } from "lucide-react/icons/pin";
import { __iconData as circlePlayIcon } from "lucide-react/icons/circle-play";
import { __iconData as plusIcon } from "lucide-react/icons/plus";
import { __iconData as receiptTextIcon } from "lucide-react/icons/receipt-text";
import { __iconData as rocketIcon } from "lucide-react/icons/rocket";
import { __iconData as rotateCcwIcon } from "lucide-react/icons/rotate-ccw";
import { __iconData as scrollTextIcon } from "lucide-react/icons/scroll-text";
import { __iconData as searchIcon } from "lucide-react/icons/search";
import { __iconData as sendIcon } from "lucide-react/icons/send";
import { __iconData as shieldIcon } from "lucide-react/icons/shield";
import { __iconData as shieldAlertIcon } from "lucide-react/icons/shield-exclamation-point";
import { __iconData as shieldCheckIcon } from "lucide-react/icons/shield-check";
import { __iconData as shoppingCartIcon } from "lucide-react/icons/shopping-cart";
import { __iconData as smartphoneIcon } from "lucide-react/icons/smartphone";
import { __iconData as starIcon } from "lucide-react/icons/star";
import { __iconData as storeIcon } from "lucide-react/icons/store";
import { __iconData as trash2Icon } from "lucide-react/icons/trash";
import { __iconData as uploadIcon } from "lucide-react/icons/upload";
import { __iconData as usersIcon } from "lucide-react/icons/users";
import { __iconData as walletIcon } from "lucide-react/icons/wallet";
import { __iconData as webhookIcon } from "lucide-react/icons/webhook";
import { __iconData as wrenchIcon } from "lucide-react/icons/wrench";
import { __iconData as xIcon } from "lucide-react/icons/x";
import { __iconData as zapIcon } from "lucide-react/icons/zap";

/** What a Lucide icon file holds besides its component: its name, aliases and shapes. */
interface IconData {
  name: string;
  aliases?: readonly string[];
  node: readonly (readonly [tag: string, attributes: Readonly<Record<string, string | number>>])[];
}

declare module "lucide-react/icons/activity" {
  // Every icon file shares one declaration file, so this names the data of all of them.
  export const __iconData: IconData;
}

export type IconProps = Omit<SVGProps<SVGSVGElement>, "children" | "dangerouslySetInnerHTML">;

// Lucide's defaults, in its order.
const SVG_ATTRIBUTES = {
  xmlns: "http://www.w3.org/2000/svg",
  width: 24,
  height: 24,
  viewBox: "0 0 24 24",
  fill: "none",
  stroke: "currentColor",
  strokeWidth: 2,
  strokeLinecap: "round",
  strokeLinejoin: "round",
} as const;

const escapeAttribute = (value: string | number) => String(value).replaceAll("&", "&amp;").replaceAll('"', "&quot;");

/** Whether `props` name the icon for assistive technology (then it is not hidden from it), as Lucide decides. */
const labelled = (props: Record<string, unknown>) =>
  Object.keys(props).some((name) => (name.startsWith("aria-") || name === "role" || name === "title") && props[name] != null);

function staticIcon({ name, aliases = [], node }: IconData) {
  const classes = ["lucide", `lucide-${name}`, ...aliases.map((alias) => `lucide-${alias}`)].join(" ");
  const shapes = {
    __html: node
      .map(([tag, attributes]) => {
        const written = Object.entries(attributes).filter(([attribute]) => attribute !== "key");
        return `<${tag}${written.map(([attribute, value]) => ` ${attribute}="${escapeAttribute(value)}"`).join("")}></${tag}>`;
      })
      .join(""),
  };
  function Icon({ className, ...props }: IconProps) {
    return createElement("svg", {
      ...SVG_ATTRIBUTES,
      className: className ? `${classes} ${className}` : classes,
      ...(labelled(props) ? {} : { "aria-hidden": "true" as const }),
      ...props,
      dangerouslySetInnerHTML: shapes,
    });
  }
  Icon.displayName = name;
  return Icon;
}

export const Activity = staticIcon(activityIcon);
export const AlertTriangle = staticIcon(triangleAlertIcon);
export const ArrowLeft = staticIcon(arrowLeftIcon);
export const BadgeCheck = staticIcon(badgeCheckIcon);
export const BadgePercent = staticIcon(badgePercentIcon);
export const Ban = staticIcon(banIcon);
export const Bell = staticIcon(bellIcon);
export const BellOff = staticIcon(bellOffIcon);
export const Bitcoin = staticIcon(bitcoinIcon);
export const BookOpen = staticIcon(bookOpenIcon);
export const ChartColumn = staticIcon(chartColumnIcon);
export const Check = staticIcon(checkIcon);
export const CheckCircle = staticIcon(circleCheckIcon);
export const CircleAlert = staticIcon(circleAlertIcon);
export const CircleSlash = staticIcon(circleSlashIcon);
export const ChevronDown = staticIcon(chevronDownIcon);
export const Clock = staticIcon(clockIcon);
export const Copy = staticIcon(copyIcon);
export const CreditCard = staticIcon(creditCardIcon);
export const Download = staticIcon(downloadIcon);
export const EyeOff = staticIcon(eyeOffIcon);
export const FileDown = staticIcon(fileDownIcon);
export const FileKey = staticIcon(fileKeyIcon);
export const Flame = staticIcon(flameIcon);
export const Gavel = staticIcon(gavelIcon);
export const Handshake = staticIcon(handshakeIcon);
export const Hash = staticIcon(hashIcon);
export const History = staticIcon(historyIcon);
export const Hourglass = staticIcon(hourglassIcon);
export const KeyRound = staticIcon(keyRoundIcon);
export const LayoutDashboard = staticIcon(layoutDashboardIcon);
export const Lock = staticIcon(lockIcon);
export const LogOut = staticIcon(logOutIcon);
export const Mail = staticIcon(mailIcon);
export const MailCheck = staticIcon(mailCheckIcon);
export const Menu = staticIcon(menuIcon);
export const MessageCircle = staticIcon(messageCircleIcon);
export const Minus = staticIcon(minusIcon);
export const Monitor = staticIcon(monitorIcon);
export const Package = staticIcon(packageIcon);
export const Percent = staticIcon(percentIcon);
export const Pin = staticIcon(pinIcon);
export const PlayCircle = staticIcon(circlePlayIcon);
export const Plus = staticIcon(plusIcon);
export const ReceiptText = staticIcon(receiptTextIcon);
export const Rocket = staticIcon(rocketIcon);
export const RotateCcw = staticIcon(rotateCcwIcon);
export const ScrollText = staticIcon(scrollTextIcon);
export const Search = staticIcon(searchIcon);
export const Send = staticIcon(sendIcon);
export const Shield = staticIcon(shieldIcon);
export const ShieldAlert = staticIcon(shieldAlertIcon);
export const ShieldCheck = staticIcon(shieldCheckIcon);
export const ShoppingCart = staticIcon(shoppingCartIcon);
export const Smartphone = staticIcon(smartphoneIcon);
export const Star = staticIcon(starIcon);
export const Store = staticIcon(storeIcon);
export const Trash2 = staticIcon(trash2Icon);
export const Upload = staticIcon(uploadIcon);
export const Users = staticIcon(usersIcon);
export const Wallet = staticIcon(walletIcon);
export const Webhook = staticIcon(webhookIcon);
export const Wrench = staticIcon(wrenchIcon);
export const X = staticIcon(xIcon);
export const Zap = staticIcon(zapIcon);
