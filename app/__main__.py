from tabletrail.cli import main

raise SystemExit(main())
