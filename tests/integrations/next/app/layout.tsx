export const metadata = { title: 'agent-session on Next.js', icons: { icon: 'data:,' } }

export default function RootLayout({ children }: { children: React.ReactNode }) {
  return (
    <html lang="en">
      <body>{children}</body>
    </html>
  )
}
