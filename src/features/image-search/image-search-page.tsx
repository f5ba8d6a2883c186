import { ComingSoon } from '../../app/ui/states';

export function ImageSearchPage() {
  return (
    <ComingSoon title="Image search">
      <p>Finding models from photos of a part is coming in a later release.</p>
    </ComingSoon>
  );
}
