import { zodResolver } from '@hookform/resolvers/zod';
import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { ReactNode } from 'react';
import { useForm } from 'react-hook-form';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod/mini';
import { AddressFieldset, type AddressFieldState, type AddressTitle } from './address-fieldset';
import { requiredNames, type AddressLayout } from './address-layout';

/** The fieldset on its own: a layout of every kind of field, with rules of its own. */

const REGIONS: Record<string, { code: string; name: string }[]> = {
  Utopia: [
    { code: 'NO', name: 'North' },
    { code: 'SO', name: 'South' },
  ],
  Atlantis: [{ code: 'DE', name: 'Deep' }],
};

const schema = z.object({
  contact: z.object({ name: z.string().check(z.trim(), z.minLength(1, 'Name, please')), phone: z.string() }),
  street: z.string().check(z.trim(), z.minLength(1, 'Street, please')),
  region: z.string().check(z.minLength(1, 'Region, please')),
  country: z.string(),
  zip: z.string().check(z.minLength(5, 'Five digits, please')),
  keep: z.boolean(),
});
type Values = z.infer<typeof schema>;

const empty: Values = {
  contact: { name: '', phone: '' },
  street: '',
  region: '',
  country: 'Utopia',
  zip: '',
  keep: false,
};

const layout: AddressLayout<Values> = {
  rows: [
    [
      { kind: 'text', name: 'contact.name', label: 'Name', autoComplete: 'shipping name', required: true },
      { kind: 'phone', name: 'contact.phone', label: 'Phone', autoComplete: 'shipping tel' },
    ],
    { kind: 'text', name: 'street', label: 'Street', autoComplete: 'shipping street-address', required: true },
    [
      {
        kind: 'region',
        name: 'region',
        label: 'Region',
        autoComplete: 'shipping address-level1',
        required: true,
        placeholder: 'Pick a region',
        regions: (country) => REGIONS[country] ?? [],
        countryField: 'country',
      },
      {
        kind: 'country',
        name: 'country',
        label: 'Country',
        autoComplete: 'shipping country-name',
        countries: ['Utopia', 'Atlantis', 'Elsewhere'],
        clears: 'region',
      },
    ],
    {
      kind: 'text',
      name: 'zip',
      label: 'Zip',
      inputMode: 'numeric',
      required: true,
      keep: (value) => value.replace(/\D/g, '').slice(0, 5),
    },
    { kind: 'checkbox', name: 'keep', label: 'Keep this address' },
  ],
};

interface HarnessProps {
  onValid?: (values: Values) => void;
  title?: AddressTitle;
  showFields?: boolean;
  lead?: ReactNode;
  fieldState?: AddressFieldState<Values>;
  defaults?: Partial<Values>;
}

function Harness({ onValid = () => undefined, title = { legend: 'Where to' }, defaults, ...rest }: HarnessProps) {
  const form = useForm<Values>({ resolver: zodResolver(schema), defaultValues: { ...empty, ...defaults } });
  return (
    <form aria-label="Harness" noValidate onSubmit={(event) => void form.handleSubmit(onValid)(event)}>
      <AddressFieldset form={form} layout={layout} title={title} className="section" {...rest} />
      <button type="submit">Send</button>
    </form>
  );
}

const group = () => screen.getByRole('group', { name: 'Where to' });

describe('AddressFieldset', () => {
  it("renders each of the layout's fields, labelled, with its autocomplete token and required mark, rows side by side", () => {
    render(<Harness />);
    const fields = within(group());
    expect(fields.getByRole('textbox', { name: 'Name' })).toHaveAttribute('autocomplete', 'shipping name');
    expect(fields.getByRole('textbox', { name: 'Name' })).toHaveAttribute('aria-required', 'true');
    const phone = fields.getByRole('textbox', { name: 'Phone' });
    expect(phone).toHaveAttribute('type', 'tel');
    expect(phone).toHaveAttribute('autocomplete', 'shipping tel');
    expect(phone).not.toHaveAttribute('aria-required');
    expect(fields.getByRole('textbox', { name: 'Street' })).toHaveAttribute('autocomplete', 'shipping street-address');
    expect(fields.getByRole('combobox', { name: 'Region' })).toHaveAttribute('autocomplete', 'shipping address-level1');
    expect(fields.getByRole('combobox', { name: 'Country' })).toHaveAttribute('autocomplete', 'shipping country-name');
    expect(fields.getByRole('textbox', { name: 'Zip' })).toHaveAttribute('inputmode', 'numeric');
    expect(fields.getByRole('checkbox', { name: 'Keep this address' })).not.toBeChecked();
    // a row of two is one form-row
    expect(fields.getByRole('textbox', { name: 'Name' }).closest('.form-row')).toBe(
      fields.getByRole('textbox', { name: 'Phone' }).closest('.form-row'),
    );
    expect(group()).toHaveClass('section');
    expect(requiredNames(layout)).toEqual(['contact.name', 'street', 'region', 'zip']);
  });

  it('shows each message under its field, flagged invalid and linked as its description', async () => {
    const user = userEvent.setup();
    const onValid = vi.fn();
    render(<Harness onValid={onValid} />);
    await user.click(screen.getByRole('button', { name: 'Send' }));

    const fields = within(group());
    for (const [name, role, message] of [
      ['Name', 'textbox', 'Name, please'],
      ['Street', 'textbox', 'Street, please'],
      ['Region', 'combobox', 'Region, please'],
      ['Zip', 'textbox', 'Five digits, please'],
    ] as const) {
      const control = await fields.findByRole(role, { name });
      expect(control, name).toHaveAttribute('aria-invalid', 'true');
      expect(control, name).toHaveAccessibleDescription(message);
    }
    expect(fields.getByRole('textbox', { name: 'Phone' })).not.toHaveAttribute('aria-invalid');
    expect(onValid).not.toHaveBeenCalled();
  });

  it('passes the values typed, the phone formatted and the zip cleaned, under their field names', async () => {
    const user = userEvent.setup();
    const onValid = vi.fn();
    render(<Harness onValid={onValid} />);
    const fields = within(group());
    await user.type(fields.getByRole('textbox', { name: 'Name' }), 'Jane Doe');
    await user.type(fields.getByRole('textbox', { name: 'Phone' }), '5125550100');
    await user.type(fields.getByRole('textbox', { name: 'Street' }), '1 Main St');
    await user.selectOptions(fields.getByRole('combobox', { name: 'Region' }), 'South');
    await user.type(fields.getByRole('textbox', { name: 'Zip' }), '7a8-7019');
    expect(fields.getByRole('textbox', { name: 'Zip' })).toHaveValue('78701');
    await user.click(fields.getByRole('checkbox', { name: 'Keep this address' }));
    await user.click(screen.getByRole('button', { name: 'Send' }));

    expect(onValid).toHaveBeenCalledTimes(1);
    expect(onValid.mock.calls[0]?.[0]).toEqual({
      contact: { name: 'Jane Doe', phone: '(512) 555-0100' },
      street: '1 Main St',
      region: 'SO',
      country: 'Utopia',
      zip: '78701',
      keep: true,
    });
  });

  it("lists the country's regions, empties the region when the country changes, and asks for text where there is no list", async () => {
    const user = userEvent.setup();
    render(<Harness />);
    const fields = within(group());
    const region = fields.getByRole('combobox', { name: 'Region' });
    expect(
      within(region)
        .getAllByRole('option')
        .map((option) => option.textContent),
    ).toEqual(['Pick a region', 'North', 'South']);
    await user.selectOptions(region, 'North');
    await user.selectOptions(fields.getByRole('combobox', { name: 'Country' }), 'Atlantis');
    const atlantis = fields.getByRole('combobox', { name: 'Region' });
    expect(atlantis).toHaveValue('');
    expect(
      within(atlantis)
        .getAllByRole('option')
        .map((option) => option.textContent),
    ).toEqual(['Pick a region', 'Deep']);
    await user.selectOptions(fields.getByRole('combobox', { name: 'Country' }), 'Elsewhere');
    expect(fields.getByRole('textbox', { name: 'Region' })).toHaveAttribute('autocomplete', 'shipping address-level1');
  });

  it('keeps showing a saved country that is not offered, rather than silently replacing it', () => {
    render(<Harness defaults={{ country: 'Lemuria' }} />);
    expect(within(group()).getByRole('combobox', { name: 'Country' })).toHaveValue('Lemuria');
  });

  it('is named by a legend, a heading or a label only', () => {
    const { unmount } = render(<Harness title={{ heading: 'Where to' }} />);
    expect(within(group()).getByRole('heading', { level: 2, name: 'Where to' })).toBeInTheDocument();
    unmount();
    render(<Harness title={{ label: 'Where to' }} />);
    expect(group()).toBeInTheDocument();
    expect(screen.queryByText('Where to')).not.toBeInTheDocument();
  });

  it('shows the lead, hides the fields on request, and locks a field with its hint', () => {
    const { unmount } = render(<Harness lead={<p>Before the fields</p>} showFields={false} />);
    expect(within(group()).getByText('Before the fields')).toBeInTheDocument();
    expect(within(group()).queryByRole('textbox')).not.toBeInTheDocument();
    unmount();
    render(<Harness fieldState={{ street: { disabled: true, hint: 'From your account' } }} />);
    const street = within(group()).getByRole('textbox', { name: 'Street' });
    expect(street).toBeDisabled();
    expect(street).toHaveAccessibleDescription('From your account');
  });
});
