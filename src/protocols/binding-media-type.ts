/**
 * The wire encoding a response Content-Type announces: its media type, whole, or with parameters
 * (which its client reads as text: recorded as the binding still, and judged so). Of the catalog's
 * bindings (catalog.ts) or of its summary's (catalog-summary.ts), alike.
 */
export function bindingOfMediaType<B extends { readonly mediaType: string }>(bindings: readonly B[], contentType: string | undefined): B | undefined {
  if (contentType === undefined) return undefined;
  const whole = contentType.trim();
  const type = contentType.split(';')[0].trim().toLowerCase();
  return bindings.find((binding) => binding.mediaType === whole) ?? bindings.find((binding) => binding.mediaType === type);
}
