// Icons in use, imported one file each so neither the dev server nor the tests load all of Lucide.
export { default as ArrowLeft } from "lucide-react/icons/arrow-left";
export { default as Bitcoin } from "lucide-react/icons/bitcoin";
export { default as BookOpen } from "lucide-react/icons/book-open";
export { default as CreditCard } from "lucide-react/icons/credit-card";
export { default as Download } from "lucide-react/icons/download";
export { default as KeyRound } from "lucide-react/icons/key-round";
export { default as LayoutDashboard } from "lucide-react/icons/layout-dashboard";
export { default as LogOut } from "lucide-react/icons/log-out";
export { default as Menu } from "lucide-react/icons/menu";
export { default as PlayCircle } from "lucide-react/icons/circle-play";
export { default as Rocket } from "lucide-react/icons/rocket";
export { default as Shield } from "lucide-react/icons/shield";
export { default as ShieldAlert } from "lucide-react/icons/shield-alert";
export { default as ShieldCheck } from "lucide-react/icons/shield-check";
export { default as Store } from "lucide-react/icons/store";
export { default as X } from "lucide-react/icons/x";
