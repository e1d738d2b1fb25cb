// An order as its buyer knows it ("Order #1001"), so buyer and admin speak of the same number. The
// provider's id is a secondary detail: small and muted for admins, in the tooltip for everyone.
export function OrderRef({
  name,
  id,
  showId = false,
  className = "",
}: {
  name: string | null;
  id: string;
  showId?: boolean;
  className?: string;
}) {
  const shown = name ?? id;
  const differs = shown !== id;
  return (
    <span className={className} title={differs ? `Order ID ${id}` : undefined}>
      {`Order ${shown}`}
      {showId && differs ? <span className="ml-1.5 text-xs text-muted">{`ID ${id}`}</span> : null}
    </span>
  );
}
