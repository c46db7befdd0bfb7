import { useId } from 'react';
import { Link } from 'react-router';
import type { Profile } from '../../../api/types';
import { militaryProgram, proDealProgram, type ProgramState } from '../programs';
import { AccountPage } from './account-page';

/** Discount Programs: the LE / MIL and Pro Deal cards with their status and Apply or Reapply. */
export function DiscountProgramsPage() {
  return <AccountPage title="Discount Programs">{(profile) => <DiscountPrograms profile={profile} />}</AccountPage>;
}

function DiscountPrograms({ profile }: { profile: Profile }) {
  return (
    <div className="account-cards">
      <ProgramCard
        title="LE / MIL"
        description="Savings for law enforcement officers and military service members, verified online."
        program={militaryProgram(profile.militaryStatus)}
        to="/profile/le-mil"
      />
      <ProgramCard
        title="Pro Deal"
        description="Special pricing for industry professionals, verified from the documents you upload."
        program={proDealProgram(profile.proDealStatus)}
        to="/profile/pro-deal"
      />
    </div>
  );
}

interface ProgramCardProps {
  title: string;
  description: string;
  program: ProgramState;
  to: string;
}

function ProgramCard({ title, description, program, to }: ProgramCardProps) {
  const id = useId();
  return (
    <section className="account-card" aria-labelledby={id}>
      <h2 id={id} className="account-card__title">
        {title}
      </h2>
      <p>{description}</p>
      <p className="program-status">
        <strong>Status:</strong> {program.text}
      </p>
      {program.action ? (
        <Link to={to} className="button" aria-label={`${program.action} for ${title}`}>
          {program.action}
        </Link>
      ) : null}
    </section>
  );
}
