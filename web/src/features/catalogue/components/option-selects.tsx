import { useId } from 'react';
import { isColourSelect, type OptionSelect } from '../logic/options';
import type { ColorOption } from '../types';

/** Marks a value that exists but is out of stock (it stays selectable). */
export const OUT_OF_STOCK_SUFFIX = ' (Out of stock)';

interface OptionSelectsProps {
  selects: readonly OptionSelect[];
  colorOptions: readonly ColorOption[];
  onChoose: (index: number, value: string) => void;
}

/**
 * The product's option selects, cascading: each offers the values that exist with the earlier
 * choices (out-of-stock ones marked). The Color select has swatches beside it, kept in sync.
 */
export function OptionSelects({ selects, colorOptions, onChoose }: OptionSelectsProps) {
  if (selects.length === 0) return null;
  return (
    <div className="option-selects">
      {selects.map((select, index) => (
        <div key={select.key} className="option-selects__select">
          <OptionSelectField
            select={select}
            onChoose={(value) => {
              onChoose(index, value);
            }}
          />
          {isColourSelect(select.key) && colorOptions.length > 0 ? (
            <Swatches
              select={select}
              colorOptions={colorOptions}
              onChoose={(value) => {
                onChoose(index, value);
              }}
            />
          ) : null}
        </div>
      ))}
    </div>
  );
}

function OptionSelectField({ select, onChoose }: { select: OptionSelect; onChoose: (value: string) => void }) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id} className="field__label">
        {select.label}
      </label>
      <select
        id={id}
        className="field__control"
        value={select.selected}
        onChange={(event) => {
          onChoose(event.target.value);
        }}
      >
        {select.values
          .filter((value) => value.exists)
          .map((value) => (
            <option key={value.id} value={value.label}>
              {value.available ? value.label : `${value.label}${OUT_OF_STOCK_SUFFIX}`}
            </option>
          ))}
      </select>
    </div>
  );
}

/**
 * Colour swatches: buttons named by their colour, the selected one pressed. A colour with no sku
 * under the earlier choices is disabled; an out-of-stock one is marked.
 */
function Swatches({
  select,
  colorOptions,
  onChoose,
}: {
  select: OptionSelect;
  colorOptions: readonly ColorOption[];
  onChoose: (value: string) => void;
}) {
  const swatches = colorOptions.flatMap((option) => {
    const value = select.values.find((candidate) => candidate.label === option.title);
    return value ? [{ option, value }] : [];
  });
  if (swatches.length === 0) return null;
  return (
    <div className="swatches" role="group" aria-label={`${select.label} swatches`}>
      {swatches.map(({ option, value }) => (
        <button
          key={option.title}
          type="button"
          className={['swatch', value.exists && !value.available ? 'swatch--unavailable' : '']
            .filter(Boolean)
            .join(' ')}
          aria-label={value.exists && !value.available ? `${option.title}${OUT_OF_STOCK_SUFFIX}` : option.title}
          aria-pressed={select.selected === option.title}
          disabled={!value.exists}
          onClick={() => {
            onChoose(option.title);
          }}
        >
          <svg
            className="swatch__colour"
            viewBox="0 0 1 1"
            preserveAspectRatio="none"
            aria-hidden="true"
            focusable="false"
          >
            <rect width="1" height="1" fill={option.value} />
          </svg>
        </button>
      ))}
    </div>
  );
}
