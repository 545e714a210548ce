/** `14:03:09`, local time of day; a full timestamp when it is not the same day as `ref`. */
export function clockTime(iso: string, ref?: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  if (ref !== undefined && new Date(ref).toDateString() !== d.toDateString()) return iso;
  return d.toTimeString().slice(0, 8);
}
