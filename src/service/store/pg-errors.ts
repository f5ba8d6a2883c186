/** PostgreSQL's unique_violation (23505), optionally of one named constraint or index. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const e = error as { code?: string; constraint?: string } | undefined;
  return e?.code === '23505' && (constraint === undefined || e.constraint === constraint);
}

/** foreign_key_violation (23503): a row still referenced, or a reference to a row that is gone. */
export function isForeignKeyViolation(error: unknown): boolean {
  return (error as { code?: string } | undefined)?.code === '23503';
}
