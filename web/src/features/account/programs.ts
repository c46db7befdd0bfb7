/**
 * The discount programs' status rules (spec section 4). Statuses come from the profile as text;
 * anything unknown reads as None (nothing applied for yet).
 */

export type MilitaryStatus = 'None' | 'Pending' | 'Rejected' | 'Verified';
export type ProDealStatus = 'None' | 'Pending' | 'Rejected' | 'Approved';

/** What a program's card shows: the status text and the action, if any. */
export interface ProgramState {
  status: string;
  text: string;
  action: 'Apply' | 'Reapply' | null;
}

const NOT_APPLIED = 'You have not applied yet.';
const PENDING = 'Your application is pending verification.';

function militaryStatus(value: string): MilitaryStatus {
  return value === 'Pending' || value === 'Rejected' || value === 'Verified' ? value : 'None';
}

function proDealStatus(value: string): ProDealStatus {
  return value === 'Pending' || value === 'Rejected' || value === 'Approved' ? value : 'None';
}

/** LE/MIL: None applies; Pending and Rejected may reapply; Verified shows no action. */
export function militaryProgram(value: string): ProgramState {
  const status = militaryStatus(value);
  switch (status) {
    case 'None':
      return { status, text: NOT_APPLIED, action: 'Apply' };
    case 'Pending':
      return { status, text: PENDING, action: 'Reapply' };
    case 'Rejected':
      return { status, text: 'Your verification was not approved.', action: 'Reapply' };
    case 'Verified':
      return { status, text: 'Your LE / MIL status is verified.', action: null };
  }
}

/** Pro Deal: Rejected reads like Pending; applying is allowed unless Approved. */
export function proDealProgram(value: string): ProgramState {
  const status = proDealStatus(value);
  switch (status) {
    case 'None':
      return { status, text: NOT_APPLIED, action: 'Apply' };
    case 'Pending':
    case 'Rejected':
      return { status, text: PENDING, action: 'Reapply' };
    case 'Approved':
      return { status, text: 'Your Pro Deal application is approved.', action: null };
  }
}
