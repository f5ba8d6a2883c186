import { ComingSoon } from '../../app/ui/states';

export function UploadPage() {
  return (
    <ComingSoon title="Upload">
      <p>
        Uploading CAD and mesh files (STEP, IGES, STL, OBJ and more), whole folders and assemblies, is coming in a later
        release.
      </p>
    </ComingSoon>
  );
}
