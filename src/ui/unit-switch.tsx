import { useId } from 'react';
import { displayUnits, setDisplayUnit, useDisplayUnit } from './lengths';

const unitNames = { mm: 'Millimetres', in: 'Inches' } as const;

/**
 * The reader's length unit where lengths are read (a model's details, a comparison's facts), the
 * same choice as the user menu's: one setting, changed where it is needed.
 */
export function UnitSwitch() {
  const unit = useDisplayUnit();
  const name = useId();
  return (
    <fieldset className="unit-switch">
      <legend className="visually-hidden">Show lengths in</legend>
      {displayUnits.map((u) => (
        <label key={u} className={`unit-switch__option${u === unit ? ' is-chosen' : ''}`} title={unitNames[u]}>
          <input type="radio" name={name} value={u} checked={u === unit} onChange={() => setDisplayUnit(u)} aria-label={unitNames[u]} />
          {u}
        </label>
      ))}
    </fieldset>
  );
}
