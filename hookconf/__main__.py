from hookconf.cli import main

raise SystemExit(main())
