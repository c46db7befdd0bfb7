import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { expect } from 'vitest';
import { useForm, type DefaultValues, type FieldValues, type Resolver } from 'react-hook-form';
import { AddressFieldset, type AddressTitle } from '../components/address/address-fieldset';
import { fieldsOf, requiredNames, type AddressField, type AddressLayout } from '../components/address/address-layout';

/**
 * One use of the address fieldset, tested the same way for each (issue 51): its layout drawn
 * with its own schema and empty form, sent empty. Every field the layout marks required then
 * shows that use's message, linked and flagged invalid; every other field shows none. So a
 * required mark without a rule, or a rule without a mark, fails the use's test.
 */

export interface AddressPart<T extends FieldValues> {
  layout: AddressLayout<T>;
  title: AddressTitle;
}

interface UseHarnessProps<T extends FieldValues> {
  resolver: Resolver<T>;
  defaultValues: DefaultValues<T>;
  parts: readonly AddressPart<T>[];
}

function UseHarness<T extends FieldValues>({ resolver, defaultValues, parts }: UseHarnessProps<T>) {
  const form = useForm<T>({ resolver, defaultValues });
  return (
    <form
      aria-label="Address use"
      noValidate
      onSubmit={(event) =>
        void form.handleSubmit(() => {
          /* only the messages are under test */
        })(event)
      }
    >
      {parts.map((part) => (
        <AddressFieldset key={titleOf(part.title)} form={form} layout={part.layout} title={part.title} />
      ))}
      <button type="submit">Send</button>
    </form>
  );
}

function titleOf(title: AddressTitle): string {
  return 'legend' in title ? title.legend : 'heading' in title ? title.heading : title.label;
}

function controlOf<T extends FieldValues>(group: HTMLElement, field: AddressField<T>): HTMLElement {
  const role = field.kind === 'checkbox' ? 'checkbox' : field.kind === 'country' ? 'combobox' : undefined;
  const scope = within(group);
  if (role) return scope.getByRole(role, { name: field.label });
  // a region is a list or, for a country without one, a text box
  return scope.queryByRole('combobox', { name: field.label }) ?? scope.getByRole('textbox', { name: field.label });
}

/**
 * Renders the use's parts with its schema and `empty` values, sends the form, and checks each
 * field: required ones (with an empty value) show `messageOf(field)`, the others none. Returns
 * the required names, for the use's own expectations.
 */
export async function expectMessagesOfUse<T extends FieldValues>(
  props: UseHarnessProps<T>,
  messageOf: (field: AddressField<T>) => string,
): Promise<string[]> {
  const user = userEvent.setup();
  const view = render(<UseHarness {...props} />);
  await user.click(screen.getByRole('button', { name: 'Send' }));
  const required: string[] = [];
  for (const part of props.parts) {
    const group = screen.getByRole('group', { name: titleOf(part.title) });
    const marked = new Set<string>(requiredNames(part.layout));
    for (const field of fieldsOf(part.layout)) {
      const control = controlOf(group, field);
      // a list with its one value chosen (the country) cannot be left empty
      if (marked.has(field.name) && field.kind !== 'country') {
        required.push(field.name);
        expect(control, field.label).toHaveAttribute('aria-required', 'true');
        expect(control, field.label).toHaveAttribute('aria-invalid', 'true');
        expect(control, field.label).toHaveAccessibleDescription(messageOf(field));
      } else {
        expect(control, field.label).not.toHaveAttribute('aria-invalid');
      }
    }
  }
  view.unmount();
  return required;
}
