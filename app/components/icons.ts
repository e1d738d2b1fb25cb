// Icons in use, imported one file each so neither the dev server nor the tests load all of Lucide,
// and each page's bundle holds only the icons it draws (an icon Lucide renamed is imported from the
// file that holds it under its new name).
//
// On the server each is drawn by `staticIcon` (./static-icon.ts) instead, as vite.config.ts swaps
// them; this file holds re-exports only, so the browser's bundler keeps each icon apart. The same
// <svg> with the same classes, but its shapes are written once per icon as markup instead of as
// elements on every render, and its presentation is the stylesheet's (decision 121). A page draws
// dozens of icons (the dashboard's sidebar alone twenty), and the server renderer writes each
// element and attribute one by one (decision 100). The browser draws each icon file's icon with
// `staticIcon` too, in place of Lucide's component factory, so no page downloads the factory
// (decision 114) and hydration finds the markup the server sent.
export { default as Activity } from "lucide-react/icons/activity";
export { default as AlertTriangle } from "lucide-react/icons/triangle-exclamation-point";
export { default as ArrowLeft } from "lucide-react/icons/arrow-left";
export { default as BadgeCheck } from "lucide-react/icons/badge-check";
export { default as BadgePercent } from "lucide-react/icons/badge-percent";
export { default as Ban } from "lucide-react/icons/ban";
export { default as Bell } from "lucide-react/icons/bell";
export { default as BellOff } from "lucide-react/icons/bell-off";
export { default as Bitcoin } from "lucide-react/icons/bitcoin";
export { default as BookOpen } from "lucide-react/icons/book-open";
export { default as ChartColumn } from "lucide-react/icons/chart-column";
export { default as Check } from "lucide-react/icons/check";
export { default as CheckCircle } from "lucide-react/icons/circle-check";
export { default as CircleAlert } from "lucide-react/icons/circle-exclamation-point";
export { default as CircleSlash } from "lucide-react/icons/circle-slash";
export { default as ChevronDown } from "lucide-react/icons/chevron-down";
export { default as Clock } from "lucide-react/icons/clock";
export { default as Copy } from "lucide-react/icons/copy";
export { default as CreditCard } from "lucide-react/icons/credit-card";
export { default as Download } from "lucide-react/icons/download";
export { default as EyeOff } from "lucide-react/icons/eye-off";
export { default as FileDown } from "lucide-react/icons/file-down";
export { default as FileKey } from "lucide-react/icons/file-key";
export { default as Flame } from "lucide-react/icons/flame";
export { default as Gavel } from "lucide-react/icons/gavel";
export { default as Handshake } from "lucide-react/icons/handshake";
export { default as Hash } from "lucide-react/icons/hash";
export { default as History } from "lucide-react/icons/rotate-ccw-clock";
export { default as Hourglass } from "lucide-react/icons/hourglass";
export { default as KeyRound } from "lucide-react/icons/key-round";
export { default as LayoutDashboard } from "lucide-react/icons/layout-dashboard";
export { default as Lock } from "lucide-react/icons/lock";
export { default as LogOut } from "lucide-react/icons/log-out";
export { default as Mail } from "lucide-react/icons/mail";
export { default as MailCheck } from "lucide-react/icons/mail-check";
export { default as Menu } from "lucide-react/icons/menu";
export { default as MessageCircle } from "lucide-react/icons/message-circle";
export { default as Minus } from "lucide-react/icons/minus";
export { default as Monitor } from "lucide-react/icons/monitor";
export { default as Package } from "lucide-react/icons/package";
export { default as Percent } from "lucide-react/icons/percent";
export { default as Pin } from "lucide-react/icons/pin";
export { default as PlayCircle } from "lucide-react/icons/circle-play";
export { default as Plus } from "lucide-react/icons/plus";
export { default as ReceiptText } from "lucide-react/icons/receipt-text";
export { default as Rocket } from "lucide-react/icons/rocket";
export { default as RotateCcw } from "lucide-react/icons/rotate-ccw";
export { default as ScrollText } from "lucide-react/icons/scroll-text";
export { default as Search } from "lucide-react/icons/search";
export { default as Send } from "lucide-react/icons/send";
export { default as Shield } from "lucide-react/icons/shield";
export { default as ShieldAlert } from "lucide-react/icons/shield-exclamation-point";
export { default as ShieldCheck } from "lucide-react/icons/shield-check";
export { default as ShoppingCart } from "lucide-react/icons/shopping-cart";
export { default as Smartphone } from "lucide-react/icons/smartphone";
export { default as Star } from "lucide-react/icons/star";
export { default as Store } from "lucide-react/icons/store";
export { default as Trash2 } from "lucide-react/icons/trash";
export { default as Upload } from "lucide-react/icons/upload";
export { default as Users } from "lucide-react/icons/users";
export { default as Wallet } from "lucide-react/icons/wallet";
export { default as Webhook } from "lucide-react/icons/webhook";
export { default as Wrench } from "lucide-react/icons/wrench";
export { default as X } from "lucide-react/icons/x";
export { default as Zap } from "lucide-react/icons/zap";
