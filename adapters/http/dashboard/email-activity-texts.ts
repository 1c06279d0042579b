/** The email activity screen's words (email-activity-screen.ts, email-activity-views.ts). */
const en = {
  title: "Email activity",
  intro:
    "Bounces and complaints the email provider reported, newest first, with the subscriber each moved. A subscriber who bounced or complained gets no more campaigns.",
  settingsLink: "Sender name and sending domain are in the settings.",
  none: "No bounces or complaints yet.",
  when: "Received",
  kind: "Report",
  subscriber: "Subscriber",
  change: "Change",
  kinds: { bounced: "Hard bounce", complained: "Complaint" },
  statusTo: "Status to {{ status }}",
  erased: "an erased subscriber",
  caption: "Bounces and complaints, newest first",
  pages: "Pages of email activity",
  older: "Older reports",
  newest: "Newest reports",
  badPosition: "That page of the email activity is not one there is; start from the newest.",
  activityLink: "See the bounces and complaints the provider reported in the email activity."
}

const de: typeof en = {
  title: "E-Mail-Aktivität",
  intro:
    "Unzustellbarkeiten und Beschwerden, die der E-Mail-Anbieter gemeldet hat, neueste zuerst, mit dem Abonnenten, den jede betraf. Wer unzustellbar ist oder sich beschwert hat, erhält keine Kampagnen mehr.",
  settingsLink: "Absendername und Versanddomain stehen in den Einstellungen.",
  none: "Noch keine Unzustellbarkeiten oder Beschwerden.",
  when: "Empfangen",
  kind: "Meldung",
  subscriber: "Abonnent",
  change: "Änderung",
  kinds: { bounced: "Harte Unzustellbarkeit", complained: "Beschwerde" },
  statusTo: "Status auf {{ status }}",
  erased: "ein gelöschter Abonnent",
  caption: "Unzustellbarkeiten und Beschwerden, neueste zuerst",
  pages: "Seiten der E-Mail-Aktivität",
  older: "Ältere Meldungen",
  newest: "Neueste Meldungen",
  badPosition: "Diese Seite der E-Mail-Aktivität gibt es nicht; beginnen Sie bei den neuesten.",
  activityLink: "Die vom Anbieter gemeldeten Unzustellbarkeiten und Beschwerden stehen in der E-Mail-Aktivität."
}

export const emailActivityTexts = { en, de }
