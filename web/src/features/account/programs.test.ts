import { describe, expect, it } from 'vitest';
import { proDealFileProblems, PRO_DEAL_MAX_BYTES } from './pro-deal-files';
import { militaryProgram, proDealProgram } from './programs';

describe('discount program status → action', () => {
  it.each([
    ['None', 'Apply', 'You have not applied yet.'],
    ['Pending', 'Reapply', 'Your application is pending verification.'],
    ['Rejected', 'Reapply', 'Your verification was not approved.'],
    ['Verified', null, 'Your LE / MIL status is verified.'],
    ['', 'Apply', 'You have not applied yet.'],
    ['Approved', 'Apply', 'You have not applied yet.'],
  ])('LE/MIL %j → %j', (status, action, text) => {
    expect(militaryProgram(status)).toMatchObject({ action, text });
  });

  it.each([
    ['None', 'Apply', 'You have not applied yet.'],
    ['Pending', 'Reapply', 'Your application is pending verification.'],
    // Rejected reads like Pending (spec)
    ['Rejected', 'Reapply', 'Your application is pending verification.'],
    ['Approved', null, 'Your Pro Deal application is approved.'],
    ['Verified', 'Apply', 'You have not applied yet.'],
  ])('Pro Deal %j → %j', (status, action, text) => {
    expect(proDealProgram(status)).toMatchObject({ action, text });
  });
});

describe('Pro Deal file checks', () => {
  const file = (name: string, size = 1000) => ({ name, size });

  it('accepts png, jpg, jpeg, tiff, tif and pdf under 0.5 MB, in any case', () => {
    expect(
      proDealFileProblems(['a.png', 'b.jpg', 'c.JPEG', 'd.tiff', 'e.tif', 'f.Pdf'].map((name) => file(name))),
    ).toEqual([]);
    expect(proDealFileProblems([file('edge.pdf', PRO_DEAL_MAX_BYTES - 1)])).toEqual([]);
  });

  it('names every refused file', () => {
    expect(
      proDealFileProblems([file('ok.png'), file('badge.gif'), file('paystub.pdf', PRO_DEAL_MAX_BYTES), file('README')]),
    ).toEqual([
      'badge.gif is not an accepted file type: only png, jpg, jpeg, tiff, tif and pdf files are accepted',
      'paystub.pdf is too large: each file must be under 0.5 MB',
      'README is not an accepted file type: only png, jpg, jpeg, tiff, tif and pdf files are accepted',
    ]);
  });

  it('needs at least one document', () => {
    expect(proDealFileProblems([])).toEqual(['At least one supporting document is required']);
  });
});
