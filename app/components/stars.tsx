// A star rating as text: "★" glyphs rather than icons, since a page of reviews would otherwise
// carry dozens of SVGs. Read out as "4.5 out of 5 stars".
export function Stars({ rating }: { rating: number }) {
  const whole = Math.round(rating);
  return (
    <span role="img" aria-label={`${rating} out of 5 stars`} className="tracking-tight text-accent">
      {"★".repeat(whole)}
      <span className="text-zinc-600">{"★".repeat(5 - whole)}</span>
    </span>
  );
}
