import type { ReactNode } from 'react';

export interface Choice {
  value: string;
  label: ReactNode;
  /** A line under the label, read with it (aria-describedby). */
  hint?: ReactNode;
}

/** A group of radio buttons with its legend: the account types, the verification options. */
export function ChoiceFieldset({ name, legend, choices, chosen, onChoose }: { name: string; legend: string; choices: Choice[]; chosen: string; onChoose: (value: string) => void }) {
  return (
    <fieldset className="field field--group smart-registration__choices">
      <legend className="field__label">{legend}</legend>
      {choices.map(({ value, label, hint }) => {
        const id = `${name}-${value}`;
        return (
          <div key={value} className="smart-registration__choice">
            <input id={id} type="radio" name={name} value={value} checked={chosen === value} onChange={() => onChoose(value)} aria-describedby={hint ? `${id}-hint` : undefined} />
            <label htmlFor={id}>{label}</label>
            {hint ? (
              <p id={`${id}-hint`} className="field__hint">
                {hint}
              </p>
            ) : null}
          </div>
        );
      })}
    </fieldset>
  );
}
